// pod::Race — the port as a game uses it: a race over the game's memory, stepped one pass of the
// race loop at a time with the milliseconds since the last pass, read back as each car's pose, speed
// and gear, each prop's pose, the race clock and the phase.
//
// Why "Race": the object runs the main-loop document's race loop (FUN_0049d4c0) pass by pass, and
// holds what a race holds; "Game" would promise the menus, the sound and the drawing, which stay the
// game's.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "pod/layout.hpp"
#include "pod/memory.hpp"
#include "pod/race.hpp"
#include "pod/step.hpp"
#include "pod/types.hpp"

namespace pod {

/// A car as drawing, the HUD and sound want it.
struct CarState {
  Vec3 position;       // the chassis point (the body's reference point on the track)
  Vec3 centre;         // the body's centre (+0x498)
  Vec3 forward, left, up;  // the car's axes (+0x4a4, +0x4b0, +0x4bc; front is +x, F166)
  Fixed speed = 0;     // |velocity|, units/s (16.16)
  int gear = 0;        // −1 reverse, 0 neutral, 1.. (+0x44a)
  Fixed engine_speed = 0;  // rad/s (+0x440)
  Fixed steer = 0;     // the front wheels' angle, rad (+0x454)
  std::uint8_t sound_state = 0;  // F022's bits (+0x4f9)
};

/// A prop as drawing wants it (port/CHOICES.md "Props": +0x40 the matrix, +0x98 the position of its centre of mass).
struct PropState {
  Vec3 position;
  std::array<Fixed, 9> matrix{};  // the nine words as stored: row by row, axis k = column k (A26)
};

/// The race's phase (race block +0, chosen): the countdown until "GO!", then racing.
enum class Phase { kCountdown, kRacing };

/// Whether Race::start settles the cars before the countdown (setup::settle, FUN_0049b9d4). The
/// original's race set-up always does (003: race_setup runs "two seconds of settling" before the
/// countdown's phase 1), so kSettle is the default; kNone is for a race whose cars were already
/// settled, or laid out where they are to start (a test's own grid).
enum class Settling { kSettle, kNone };

class Race {
 public:
  /// A race over `memory`, which the game owns and keeps alive: a memory image holding a race laid
  /// out (a snapshot at a pass's start), or one mapped with map_blocks, filled with load and started
  /// with start. `scratch` names the car step's scratch words; they must be mapped.
  explicit Race(Memory& memory, const step::Scratch& scratch = default_scratch());

  /// The scratch words map_blocks maps: step::Scratch's, with the slip ratio's word past the contact
  /// record 0x4f3380 (step::Scratch's default word is the contact record's first).
  static step::Scratch default_scratch();

  // --- Laying a race out ---

  /// Maps, zeroed, every fixed block the race reads and writes (the race cars, drivers, drawn
  /// objects, race block, frame-time block, clock words, racer counts, options, props' words, the
  /// step's scratch) and installs the arithmetic tables. The track, the drawn objects' parts, the
  /// props' records and the cars' files are the game's to map and load, at their own addresses.
  static void map_blocks(FlatMemory& m);
  /// Copies bytes into the race's memory (a loader's records: sectors, meshes, cars, props).
  void load(GuestAddr address, std::span<const std::uint8_t> bytes);
  /// The race set-up's share (port/CHOICES.md "The race's set-up", G25): the racer counts, the step
  /// unit, a race (not a time trial), the race clock 0; then, unless `settling` is kNone, the settling
  /// (setup::settle, with the controllers set so far); then the countdown's phase, the clock's first
  /// reading `now_ms` (frame_clock once, as the loop does before its first pass), "GO!" at
  /// `countdown_ms` after it; the catch-up's target function (catch_up::target at [0x4f984c]); each
  /// racer with a drawn object's tracker on the path point nearest its body (paths::place, after the
  /// settling as 002 places them). The cars, each on its grid slot (setup::grid_slot), and the paths
  /// (0x543254, the link table 0x543258) must be loaded before.
  void start(int humans, int computers, std::uint32_t now_ms, std::uint32_t countdown_ms = 1000,
             Settling settling = Settling::kSettle);

  // --- Running it ---

  /// Racer `racer`'s controller (stage 2 of its car step): it writes the driver's input bits +0x34
  /// and amounts +0x40, +0x44, +0x48. None: the driver's input is left as it stands.
  void set_controller(int racer, step::Controller controller);
  /// One pass of the race loop (003 rows 3, 4, 8, 10) with `ms` milliseconds since the last pass:
  /// the steps of the frame time measured at the last pass, the race clock, the next frame time, the
  /// countdown. Returns what the steps report (put-backs, contacts, sound slots, smoke).
  race::PassOut pass(std::uint32_t ms);

  // --- Reading it ---

  int racers() const;
  CarState car(int racer) const;
  int props() const;
  PropState prop(int index) const;
  Fixed race_clock() const;         // 0x502740, 16.16 s (ms × 65)
  Phase phase() const;
  std::int32_t steps() const;       // simulation steps run so far (frame block +0xc)
  Fixed frame_time() const;         // the next pass's frame time (0x60be0c)
  std::uint32_t clock_ms() const;   // the millisecond clock's last reading (0x60be10)
  Memory& memory() const { return *m_; }

 private:
  Memory* m_;
  race::Racers racers_;
};

}  // namespace pod
