// pod::port — POD 2.8's car physics (WINPOD.EXE's FUN_0041b66c and what it calls), bit for bit, in
// C++20 with no dependency beyond the standard library. One include for a game.
//
// The state lives at the original's guest addresses in a pod::Memory (pod::FlatMemory for a game):
// map the race cars, drivers, race block, frame-time block, sector table and track records, the
// surfaces and the chassis counter; call pod::tables::install once (the three tables and the
// constants) and pod::step::map_scratch; fill the track and the cars; then per racer and step set
// the frame time (0x621b70) and call pod::step::step. See port/README.md.
#pragma once

#include "pod/addresses.hpp"
#include "pod/body.hpp"
#include "pod/cars.hpp"
#include "pod/collide.hpp"
#include "pod/damage.hpp"
#include "pod/drive.hpp"
#include "pod/forces.hpp"
#include "pod/frames.hpp"
#include "pod/game.hpp"
#include "pod/hulls.hpp"
#include "pod/layout.hpp"
#include "pod/math.hpp"
#include "pod/memory.hpp"
#include "pod/props.hpp"
#include "pod/race.hpp"
#include "pod/setup.hpp"
#include "pod/step.hpp"
#include "pod/suspension.hpp"
#include "pod/tables.hpp"
#include "pod/tyres.hpp"
#include "pod/types.hpp"
