#include "lockstep/capture/capture.hpp"
#include "lockstep/harness/machine.hpp"
