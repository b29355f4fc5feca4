#include <cstdint>
#include <fmt/format.h>
#include "pod/memory.hpp"
