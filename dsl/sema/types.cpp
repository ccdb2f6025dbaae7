#include "argus/dsl/types.h"
