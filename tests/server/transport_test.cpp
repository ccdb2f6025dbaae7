// The Content-Length framing, with every malformed case the server must survive.
#include "argus/server/transport.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace argus::server {
namespace {

std::string frame(const std::string &body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

const std::string kPing = R"({"jsonrpc":"2.0","method":"ping"})";

class TransportTest : public ::testing::Test {
protected:
  ReadResult read_from(const std::string &input) {
    in_.str(input);
    return transport_.read();
  }
  ReadResult next() { return transport_.read(); }

  std::istringstream in_;
  std::ostringstream out_;
  std::ostringstream log_stream_;
  Logger log_{log_stream_, LogLevel::Debug};
  Transport transport_{in_, out_, log_};
};

TEST_F(TransportTest, ReadsOneMessage) {
  const ReadResult result = read_from(frame(kPing));
  ASSERT_EQ(result.kind, ReadResult::Kind::Message);
  EXPECT_EQ(result.message["method"], "ping");
  EXPECT_EQ(next().kind, ReadResult::Kind::End);
}

TEST_F(TransportTest, AcceptsBareNewlinesAndCaseInsensitiveNames) {
  const ReadResult result =
      read_from("content-length: " + std::to_string(kPing.size()) + "\n\n" + kPing);
  ASSERT_EQ(result.kind, ReadResult::Kind::Message);
}

TEST_F(TransportTest, IgnoresUnknownHeaders) {
  const ReadResult result =
      read_from("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nX-Whatever: 1\r\n" +
                frame(kPing));
  ASSERT_EQ(result.kind, ReadResult::Kind::Message);
}

TEST_F(TransportTest, AcceptsIdenticalDuplicateLength) {
  const std::string length = "Content-Length: " + std::to_string(kPing.size()) + "\r\n";
  const ReadResult result = read_from(length + length + "\r\n" + kPing);
  ASSERT_EQ(result.kind, ReadResult::Kind::Message);
}

TEST_F(TransportTest, SkipsConflictingDuplicateLengthAndResynchronises) {
  const ReadResult result =
      read_from("Content-Length: 3\r\nContent-Length: 5\r\n\r\n" + kPing + frame(kPing));
  ASSERT_EQ(result.kind, ReadResult::Kind::Message);
  EXPECT_EQ(next().kind, ReadResult::Kind::End);
  EXPECT_NE(log_stream_.str().find("conflicting"), std::string::npos);
}

TEST_F(TransportTest, SkipsMissingLength) {
  const ReadResult result = read_from("Content-Type: x\r\n\r\n" + kPing + frame(kPing));
  ASSERT_EQ(result.kind, ReadResult::Kind::Message);
  EXPECT_EQ(next().kind, ReadResult::Kind::End);
  EXPECT_NE(log_stream_.str().find("without Content-Length"), std::string::npos);
}

TEST_F(TransportTest, SkipsNonNumericLength) {
  for (const std::string bad : {"abc", "-5", "12x", "", "99999999999999999999999999"}) {
    in_.clear();
    const ReadResult result = read_from("Content-Length: " + bad + "\r\n\r\n" + frame(kPing));
    ASSERT_EQ(result.kind, ReadResult::Kind::Message) << bad;
  }
}

TEST_F(TransportTest, RefusesAbsurdLength) {
  const ReadResult result = read_from("Content-Length: " + std::to_string(kMaxMessageBytes + 1) +
                                      "\r\n\r\n" + frame(kPing));
  ASSERT_EQ(result.kind, ReadResult::Kind::Message);
  EXPECT_NE(log_stream_.str().find("refusing"), std::string::npos);
}

TEST_F(TransportTest, TooShortLengthGivesParseErrorThenResynchronises) {
  const ReadResult first = read_from("Content-Length: 5\r\n\r\n" + kPing + frame(kPing));
  EXPECT_EQ(first.kind, ReadResult::Kind::ParseError);
  const ReadResult second = next();
  ASSERT_EQ(second.kind, ReadResult::Kind::Message);
  EXPECT_EQ(second.message["method"], "ping");
}

TEST_F(TransportTest, TooLongLengthEndsCleanly) {
  const ReadResult result = read_from("Content-Length: 500\r\n\r\n" + kPing);
  EXPECT_EQ(result.kind, ReadResult::Kind::End);
}

TEST_F(TransportTest, InvalidJsonIsAParseErrorAndReadingContinues) {
  const ReadResult first = read_from(frame("{not json") + frame(kPing));
  EXPECT_EQ(first.kind, ReadResult::Kind::ParseError);
  EXPECT_EQ(next().kind, ReadResult::Kind::Message);
}

TEST_F(TransportTest, TruncatedHeaderEndsCleanly) {
  EXPECT_EQ(read_from("Content-Len").kind, ReadResult::Kind::End);
}

TEST_F(TransportTest, EmptyInputEnds) { EXPECT_EQ(read_from("").kind, ReadResult::Kind::End); }

TEST_F(TransportTest, GarbageLinesAreSkipped) {
  const ReadResult result = read_from("hello\r\n\r\n\r\n" + frame(kPing));
  ASSERT_EQ(result.kind, ReadResult::Kind::Message);
}

TEST_F(TransportTest, VeryLongGarbageLineIsBounded) {
  const ReadResult result = read_from(std::string(1 << 20, 'x') + "\r\n" + frame(kPing));
  ASSERT_EQ(result.kind, ReadResult::Kind::Message);
}

TEST_F(TransportTest, WritesFramedMessages) {
  transport_.write(nlohmann::json{{"jsonrpc", "2.0"}, {"id", 1}, {"result", nullptr}});
  const std::string body = R"({"id":1,"jsonrpc":"2.0","result":null})";
  EXPECT_EQ(out_.str(), frame(body));
}

TEST_F(TransportTest, WritesInvalidUtf8Replaced) {
  transport_.write(nlohmann::json{{"s", std::string("a\xff")}});
  EXPECT_NE(out_.str().find("\xEF\xBF\xBD"), std::string::npos);
}

} // namespace
} // namespace argus::server
