#include "lockstep/capture/capture.hpp"
#include "lockstep/machine/machine.hpp"
