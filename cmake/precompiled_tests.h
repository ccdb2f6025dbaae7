// The precompiled headers of a test binary: the common ones and GoogleTest's.
#include "precompiled.h"

#include <gtest/gtest.h>
