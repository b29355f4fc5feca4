// Gliders' bindings: for each original function the port covers, how to run the port on a case
// (lockstep/cases/binding.hpp). Its own lockstep (lockstep_main.cpp) and its gate use them.
#pragma once

#include "lockstep/cases/binding.hpp"

namespace gliders {

lockstep::cases::BindingSet bindings();

}  // namespace gliders
