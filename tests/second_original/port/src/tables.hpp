// Calls through an entity's function table (EntityVtbl). The table holds the original's code
// addresses; the port knows which of its functions each address is (crawl::code) and refuses any
// other with an error naming the table and the address.
#pragma once

#include "crawl/game.hpp"

namespace crawl {

/// e->vtbl->think(e, world, dt): the table's first slot.
void call_think(Memory& m, GuestAddr e, GuestAddr world, float dt);
/// e->vtbl->damage(e, amount): the table's second slot (its result unused by every caller).
void call_damage(Memory& m, GuestAddr e, std::int32_t amount);

}  // namespace crawl
