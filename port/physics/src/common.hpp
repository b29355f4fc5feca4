// Private helpers shared by the car-step modules.
#pragma once

#include "pod/addresses.hpp"
#include "pod/layout.hpp"
#include "pod/math.hpp"

namespace pod::detail {

using math::add;
using math::clamp;
using math::sub;
using math::uabs;
using math::wrap_add;
using math::wrap_neg;
using math::wrap_sub;

/// The frame time of this car step (0x621b70 +0), read where the original reads it.
inline Fixed dt(Memory& m) { return m.i32(addr::kFrameTime); }

/// A vector field of the step's force array: forces[i], i = 0..4 the points', 5 the outside force.
inline GuestAddr force_at(GuestAddr forces, int i) { return forces + 12u * static_cast<std::uint32_t>(i); }

}  // namespace pod::detail
