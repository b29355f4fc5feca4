#include "lockstep/base/result.hpp"
#include "lockstep/capture/capture.hpp"
