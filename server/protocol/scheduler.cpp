#include "argus/server/scheduler.h"

namespace argus::server {

void Scheduler::check(DocumentSnapshot snapshot, const Callback &done) {
  CheckedFile checked = check_source(snapshot.path, snapshot.text, options_);
  done(snapshot, checked);
}

} // namespace argus::server
