#include "lockstep/machine/machine.hpp"
#include "lockstep/disasm/disasm.hpp"
#include "lockstep/profile/labels.hpp"
