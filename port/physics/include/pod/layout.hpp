// Typed views of the original's records, at their guest addresses, with every offset the documents
// name (the physics document's "The race car", the track-world document; port/CHOICES.md "Addresses and layout"). A view is an
// address and a Memory; reading a field is one load through Memory, so the replay sees exactly the
// original's accesses. Pointers inside records stay 32-bit guest addresses.
//
// Offsets marked "chosen" are not in the documents; they come from port/CHOICES.md (the table of
// choices shared with the stand-in). Everything else cites the document that names it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "pod/addresses.hpp"
#include "pod/memory.hpp"
#include "pod/types.hpp"

namespace pod {

/// A field of type T at a byte offset in its record. T is one of u8, i8, u16, i16, u32 (also
/// GuestAddr), i32 and Vec3.
template <class T>
struct Field {
  std::uint32_t offset;
};

/// A run of `count` fields of type T from `offset`, `stride` bytes apart.
template <class T>
struct Array {
  std::uint32_t offset;
  std::uint32_t count;
  std::uint32_t stride;
  constexpr Field<T> operator[](std::uint32_t i) const { return Field<T>{offset + i * stride}; }
};

namespace detail {
template <class T>
T load(Memory& m, GuestAddr a);
template <> inline std::uint8_t load<std::uint8_t>(Memory& m, GuestAddr a) { return m.u8(a); }
template <> inline std::int8_t load<std::int8_t>(Memory& m, GuestAddr a) { return m.i8(a); }
template <> inline std::uint16_t load<std::uint16_t>(Memory& m, GuestAddr a) { return m.u16(a); }
template <> inline std::int16_t load<std::int16_t>(Memory& m, GuestAddr a) { return m.i16(a); }
template <> inline std::uint32_t load<std::uint32_t>(Memory& m, GuestAddr a) { return m.u32(a); }
template <> inline std::int32_t load<std::int32_t>(Memory& m, GuestAddr a) { return m.i32(a); }
template <> inline Vec3 load<Vec3>(Memory& m, GuestAddr a) { return m.vec3(a); }

inline void store(Memory& m, GuestAddr a, std::uint8_t v) { m.put_u8(a, v); }
inline void store(Memory& m, GuestAddr a, std::int8_t v) { m.put_i8(a, v); }
inline void store(Memory& m, GuestAddr a, std::uint16_t v) { m.put_u16(a, v); }
inline void store(Memory& m, GuestAddr a, std::int16_t v) { m.put_i16(a, v); }
inline void store(Memory& m, GuestAddr a, std::uint32_t v) { m.put_u32(a, v); }
inline void store(Memory& m, GuestAddr a, std::int32_t v) { m.put_i32(a, v); }
inline void store(Memory& m, GuestAddr a, const Vec3& v) { m.put_vec3(a, v); }
}  // namespace detail

/// Base of every view: a record at a guest address.
class RecordView {
 public:
  RecordView(Memory& m, GuestAddr base) : m_(&m), base_(base) {}
  GuestAddr addr() const { return base_; }
  template <class T>
  GuestAddr addr(Field<T> f) const { return base_ + f.offset; }
  Memory& memory() const { return *m_; }

  template <class T>
  T get(Field<T> f) const { return detail::load<T>(*m_, base_ + f.offset); }
  template <class T>
  void set(Field<T> f, const std::type_identity_t<T>& v) const { detail::store(*m_, base_ + f.offset, v); }

 private:
  Memory* m_;
  GuestAddr base_;
};

/// A point record, 0xd8 bytes: wheels 0..3 then the chassis point open the race car (F016).
class Point : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0xd8;

  static constexpr Field<Vec3> position{0x00};        // world position (FUN_00419680)
  static constexpr Field<Vec3> velocity{0x0c};        // (FUN_00419680)
  static constexpr Field<GuestAddr> surface{0x18};    // 0x62bc0c + 12 × n; first word the grip (F017)
  static constexpr Field<GuestAddr> sector{0x1c};     // its sector (FUN_00417988)
  static constexpr Field<GuestAddr> last_sector{0x20};  // last step's, for skid marks (FUN_0041a714)
  static constexpr Field<Vec3> contact_normal{0x24};  // (FUN_004174f8)
  static constexpr Field<GuestAddr> face_mesh{0x30};  // touched face: its mesh
  static constexpr Field<std::int32_t> face_number{0x34};  // touched face: its number
  static constexpr Field<std::uint8_t> sliding{0x38};   // set when |slip| > 0x9470 (F055; A15)
  static constexpr Field<std::uint8_t> skidding{0x39};  // set when |slip| > 0x4240 (F055; A15)
  static constexpr Field<std::uint8_t> touching{0x3a};  // (FUN_00417988)
  static constexpr Field<std::uint8_t> face_is_quad{0x3b};  // quad 1, triangle 0
  static constexpr Field<std::int32_t> lift{0x3c};      // floor-contact lift factor, 0 in every car (F024)
  static constexpr Field<Vec3> hang{0x40};            // chosen: where the point hangs, body frame (x fwd, y left, z up)
  static constexpr Field<Fixed> radius{0x4c};         // chosen: wheel radius; the chassis point's contact radius
  static constexpr Field<Fixed> spin{0x50};           // chosen: wheel spin, rad/s
  static constexpr Field<Fixed> drive_torque{0x54};   // chosen: drive share less rolling resistance, this step
  static constexpr Field<Fixed> brake_torque{0x58};   // chosen: signed, against the spin
  static constexpr Field<std::int32_t> roll_angle{0x5c};  // wheel roll angle (FUN_00415424)
  static constexpr Field<Vec3> rolling_dir{0x60};     // axes (FUN_0041b3d4): rolling direction,
  static constexpr Field<Vec3> axle{0x6c};            //   axle,
  static constexpr Field<Vec3> up{0x78};              //   up
  static constexpr Field<Vec3> impulse{0x84};         // impulse taken this step (FUN_00416284)
  static constexpr Field<std::int32_t> rolling_resistance{0x90};  // stage 11 (F029)
  static constexpr Field<Fixed> extension{0x94};      // chosen: h, the wheel centre hangs h below +0x40 along up
  static constexpr Field<Fixed> extension_rate{0x98}; // chosen: dh/dt, units/s
  static constexpr Field<Fixed> spring_out{0x9c};     // chosen: spring + damper, quarter weights, ±7.63 (F033)
  static constexpr Field<Fixed> load{0xa0};           // chosen: normal force this step
  static constexpr Field<Fixed> bottom_out{0xa4};     // chosen (wheels): how far the track pass found the
                                                      //   wheel past the top of its travel (0 if not)
  static constexpr Field<Fixed> rest{0xa8};           // chosen: the spring's free extension
  static constexpr Field<Fixed> droop{0xac};          // chosen: largest h
  static constexpr Field<Fixed> spring_rate{0xb0};    // chosen: quarter weights per unit of compression
  static constexpr Field<Fixed> damper_rate{0xb4};    // chosen: quarter weights per unit/s
  static constexpr Field<Fixed> side_grip{0xb8};      // chosen
  static constexpr Field<Fixed> traction{0xbc};       // chosen
  static constexpr Field<std::int32_t> wall_depth{0xc0};  // wall penetration depth (FUN_004167ec)
  static constexpr Field<Vec3> wall_dir{0xc4};        // wall direction
  static constexpr Field<std::int32_t> bounce{0xd0};  // bounce (FUN_004167ec, FUN_00416284)
  static constexpr Field<std::int32_t> touch_count{0xd4};  // 1..16 down, -1..-16 off (F018)
};

/// The race car, 0x558 bytes per racer at 0x630838 (F015, F016).
class Car : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = addr::kRaceCarSize;
  static constexpr int kWheels = 4;
  static constexpr int kChassis = 4;  // the fifth point, at 0x360
  static constexpr int kPoints = 5;

  /// Point i: wheels 0..3, then the chassis point (i == 4, at 0x360).
  Point point(int i) const { return Point(memory(), addr() + static_cast<std::uint32_t>(i) * Point::kSize); }
  static constexpr GuestAddr at(GuestAddr cars, int racer) { return cars + static_cast<std::uint32_t>(racer) * kSize; }

  static constexpr Field<std::int32_t> unknown_404{0x404};  // cleared by the wheel spin (FUN_00418bd4); = chassis +0xa4
  static constexpr Field<std::int32_t> wheel1_sector_number{0x438};  // (FUN_00417988)
  static constexpr Field<std::int32_t> track_calls{0x43c};  // chosen: collide::track's call counter (A12)
  static constexpr Field<std::int32_t> engine_speed{0x440};       // rad/s, 0..engine_max - 1 (F037, F040)
  static constexpr Field<std::int32_t> wheel_engine_speed{0x444}; // front wheels' mean spin × ratio (F041)
  static constexpr Field<std::uint8_t> gearbox_flags{0x448};      // bit 2: automatic (F021)
  static constexpr Field<std::uint8_t> gear_request{0x449};       // 0x20 up, 0x40 down (F019)
  static constexpr Field<std::int8_t> gear{0x44a};        // chosen: -1 reverse, 0 neutral, 1..top
  static constexpr Field<std::uint8_t> top_gear{0x44b};   // chosen
  static constexpr Field<Fixed> throttle{0x44c};          // chosen: 0..1 (stage 3)
  static constexpr Field<Fixed> brake{0x450};             // chosen: 0..1 (stage 3)
  static constexpr Field<Fixed> steer{0x454};             // chosen: front wheels' angle, rad, + left
  static constexpr Field<Fixed> engine_max{0x458};        // chosen offset: the engine limit (F040, F048)
  static constexpr Field<Fixed> rev_up{0x45c};            // chosen: rad/s² (F038)
  static constexpr Field<Fixed> rev_down{0x460};          // chosen: rad/s² (F039)
  static constexpr Field<Fixed> torque_out{0x464};        // chosen: drive::torque's result
  static constexpr Field<Fixed> steer_limit{0x468};       // chosen: rad
  static constexpr Field<Fixed> brake_max{0x46c};         // chosen: brake torque per wheel at full brake
  static constexpr Field<std::int32_t> gear_timer{0x470};         // a change lasts 15000/65536 s (F020)
  static constexpr Array<std::int32_t> shift_points{0x474, 4, 4}; // 0x474..0x480 (F048)
  static constexpr Field<Fixed> shift_up{0x474};          // 0.92 of the limit (F048; order chosen)
  static constexpr Field<Fixed> shift_down{0x478};        // 0.46: down-shifts skip under it (F047)
  static constexpr Field<Fixed> idle{0x47c};              // 0.10
  static constexpr Field<Fixed> shift_from_neutral{0x480};  // 0.20
  static constexpr Array<Fixed> ratios{0x484, 5, 4};      // chosen: gears 1..5, engine rad/s per wheel rad/s
  static constexpr Field<Vec3> centre{0x498};         // the body's centre (FUN_00419ad0)
  static constexpr Field<Vec3> forward{0x4a4};        // axes (front is +x, F166)
  static constexpr Field<Vec3> left{0x4b0};
  static constexpr Field<Vec3> up{0x4bc};
  static constexpr Field<Vec3> velocity{0x4c8};
  static constexpr Field<Vec3> carried_force{0x4d4};  // from collisions, into the next step
  static constexpr Field<Vec3> carried_torque{0x4e0};
  static constexpr Field<std::int32_t> controller_word{0x4ec};  // written by the controller (unknown)
  static constexpr Field<std::uint32_t> upside_down{0x4f0};     // upside-down timer, two halves (F023):
  static constexpr Field<std::uint16_t> upside_down_lo{0x4f0};  //   chosen: time upside down in 1/256 s,
  static constexpr Field<std::uint16_t> upside_down_hi{0x4f2};  //   and steps upside down
  static constexpr Field<GuestAddr> sound_table{0x4f4};
  static constexpr Field<std::uint8_t> skid_sound{0x4f8};   // skid sound counter
  static constexpr Field<std::uint8_t> sound_state{0x4f9};  // bits, F022
  static constexpr Field<std::uint16_t> step_input{0x4fa};  // chosen: the input bits after stage 3
  static constexpr Field<Vec3> spin{0x4fc};           // angular velocity
  static constexpr Field<Vec3> inertia{0x508};        // about forward, left, up
  static constexpr Field<std::int32_t> mass{0x520};   // "masses at +0x520" (F093; A27)
  static constexpr Field<Fixed> wheel_inertia{0x524};  // chosen
  static constexpr Field<Fixed> steer_rate{0x528};     // chosen: rad/s
  static constexpr Field<std::int32_t> brake_hold{0x52c};
  static constexpr Field<std::int32_t> drag{0x530};
  static constexpr Field<std::int32_t> downforce{0x534};
  static constexpr Field<GuestAddr> torque_curve{0x538};  // chosen: 40 i32, torque at rpm 256·i
  static constexpr Field<Fixed> weight{0x53c};            // chosen: mul16(mass, 9.81)
  static constexpr Field<Fixed> side_stiffness{0x540};    // chosen: grip's side force per unit/s
  static constexpr Field<std::int32_t> drive_layout{0x54c};  // 1 all wheels, 2 front, else rear (F028)
};

/// Sound state bits at car +0x4f9 (F022).
namespace sound {
inline constexpr std::uint8_t kSkid = 0x01;
inline constexpr std::uint8_t kEngineRising = 0x02;
inline constexpr std::uint8_t kEngineFalling = 0x04;
inline constexpr std::uint8_t kAirborne = 0x08;
inline constexpr std::uint8_t kScraping = 0x10;
inline constexpr std::uint8_t kCarContact = 0x20;
inline constexpr std::uint8_t kCrash = 0x40;
}  // namespace sound

/// A driver, 0xb0 bytes (000, 002, 003; port/CHOICES.md "Racers, drivers and controllers").
class Driver : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = addr::kDriverSize;

  static constexpr Field<std::int32_t> racer{0x00};     // chosen: the racer's number (CHOICES "Records")
  static constexpr Field<GuestAddr> object{0x04};       // the car's drawn (race) object
  static constexpr Field<GuestAddr> car_step_fn{0x08};  // car_step (003)
  static constexpr Field<GuestAddr> controller_fn{0x0c};  // the controller, stage 2
  static constexpr Field<GuestAddr> car{0x10};          // chosen: the car's address (CHOICES "Records")
  static constexpr Field<GuestAddr> tracker_link{0x2c};
  static constexpr Field<GuestAddr> tracker_point{0x30};
  static constexpr Field<std::uint32_t> input{0x34};    // input bits, low 16 bits used (F027; A04)
  static constexpr Field<std::uint32_t> flags{0x38};    // bit 0 human, bit 1 computer car (F151)
  static constexpr Field<std::uint8_t> flags_low{0x38}; // its low byte, as the step's tests load it
                                                        // (CHOICES "Reads")
  static constexpr Field<std::int32_t> steering{0x40};  // chosen (CHOICES "Records")
  static constexpr Field<std::int32_t> throttle{0x44};  // chosen
  static constexpr Field<std::int32_t> brake{0x48};     // chosen
  static constexpr Field<std::uint32_t> put_back_mark{0x58};  // chosen: 1 from a put-back until the simulation
                                                              // step's paths pass (CHOICES "The race's paths")
  static constexpr Field<GuestAddr> line_point{0x5c};   // chosen: a computer driver's lane target, a point's address
  static constexpr Field<std::int32_t> stuck_timer{0x7c};  // (F129, F130)
  static constexpr Field<GuestAddr> catch_up{0x90};     // the catch-up record's address, 0x4f97c8 + 16·racer
                                                        // (chosen reading of A37: a pointer)
};

/// A hull, 0x1c bytes (seven words, 002; port/CHOICES.md "Car against car and damage"): the box of its object's vertices, in the
/// object's own frame (F147), and the radius of its x and y half sizes (F148).
class Hull : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0x1c;
  static constexpr Field<Vec3> half{0x00};      // (max − min) >> 1
  static constexpr Field<Fixed> radius{0x0c};   // √(x² + y²) of the half sizes
  static constexpr Field<Vec3> centre{0x10};    // (max + min) >> 1
  static constexpr Field<Fixed> half_z{0x08};   // half's z alone: the pose reads no more of it (F089)
};

/// A racer's drawn (race) object, 0x80 bytes at 0x61a6d0 + 0x80 × racer, the driver's +4 (000, 002,
/// 003; port/CHOICES.md "Car against car and damage"). Its matrix holds the car's axes as columns, stored row by row (F089; A26).
class RaceObject : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0x80;
  static constexpr int kBodyParts = 6;  // body set 0's six parts carry a health (F101, F146)
  static constexpr int kFirstWheelPart = 6;  // wheels 0..3 are parts 6..9 (F092)
  static constexpr int kParts = 10;  // F146
  static constexpr Field<std::int32_t> part_count{0x00};
  static constexpr Field<GuestAddr> parts{0x04};  // the address of a list of part addresses (chosen, u32 each)
  static constexpr Field<GuestAddr> hull{0x44};   // the whole car's hull (a pointer, A01)
  static constexpr std::uint32_t kMatrix = 0x48;  // 3 × 3 i32, row r at +0x48 + 12r
  static constexpr Field<Vec3> position{0x6c};
  /// Axis k (0 forward, 1 left, 2 up): column k of the matrix.
  Vec3 axis(int k) const {
    const std::uint32_t c = kMatrix + 4u * static_cast<std::uint32_t>(k);
    return Vec3{get(Field<Fixed>{c}), get(Field<Fixed>{c + 12}), get(Field<Fixed>{c + 24})};
  }
  /// Stores the axes as the matrix's columns, row by row (F089): row r is (forward[r], left[r], up[r]).
  void put_axes(const Vec3& forward, const Vec3& left, const Vec3& up) const {
    for (int r = 0; r < 3; ++r)
      memory().put_vec3(addr() + kMatrix + 12u * static_cast<std::uint32_t>(r), Vec3{forward[r], left[r], up[r]});
  }
  /// Part i's address: the i-th word of the part list.
  GuestAddr part(int i) const { return memory().u32(get(parts) + 4u * static_cast<std::uint32_t>(i)); }
};

/// A part of a drawn object (port/CHOICES.md "Car against car and damage"): 18 body objects in three
/// sets of six and four wheels (F145). Size and the vertex fields chosen (port/CHOICES.md, "Car against car and damage").
class Part : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0xa4;                  // chosen
  static constexpr Field<std::uint32_t> vertex_count{0x00};     // chosen
  static constexpr Field<GuestAddr> vertices{0x04};             // chosen: vec3s in the object's frame
  static constexpr Field<GuestAddr> hull{0x34};                 // a pointer (A01)
  static constexpr Field<GuestAddr> chain{0x38};                // the macro chain, 0 = none
  static constexpr Field<std::int32_t> health{0x3c};            // 2,000,000 at the start (F101)
  static constexpr Field<Vec3> offset{0x98};                    // placement in the object (body parts)
};

/// An element of a part's macro chain, (macro, argument, next) (port/CHOICES.md "Car against car and damage"; 12 bytes chosen).
class ChainElement : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 12;
  static constexpr Field<GuestAddr> macro{0x0};     // code address: damage::to_template, 0x4545a8
  static constexpr Field<GuestAddr> argument{0x4};  // the template part
  static constexpr Field<GuestAddr> next{0x8};      // 0 = the end
};

/// The contact record hull_test writes and the pair reads (chosen: a static block at 0x4f3380).
class Contact : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0x2c;
  static constexpr Field<Vec3> normal{0x00};     // unit, from a's centre to b's
  static constexpr Field<Fixed> overlap{0x0c};   // reach − distance (F091)
  static constexpr Field<Vec3> point{0x10};      // the facing corners' midpoint, world
  static constexpr Field<Vec3> spread{0x1c};     // half their x, y, z distances
  static constexpr Field<Fixed> distance{0x28};  // between the hull centres
};

/// A sector, 0x3c bytes, [0x57bf74] of them at [0x57bf78] (000, 002; port/CHOICES.md "Track").
class Sector : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = addr::kSectorSize;

  static constexpr Field<GuestAddr> mesh{0x00};
  static constexpr Field<Vec3> bounds_low{0x10};   // chosen reading of A23: +0x10 the low corner,
  static constexpr Field<Vec3> bounds_high{0x1c};  //   +0x1c the high one (CHOICES "Track")
  static constexpr Field<std::int32_t> neighbour_count{0x28};  // -1 out of play (F079)
  static constexpr Field<GuestAddr> neighbours{0x2c};          // list of u32 addresses of their
                                                               // records (chosen reading of A09)
  static constexpr Field<std::int32_t> one{0x34};              // always 1 (F132)
};

/// A sector's mesh (002; port/CHOICES.md "Track"). Vertices are three i32 16.16 world coordinates, z up
/// (chosen, G23; CHOICES "Track").
class Mesh : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0x1c;      // chosen
  static constexpr std::uint32_t kVertexSize = 12;  // chosen
  static constexpr Field<std::uint16_t> vertex_count{0x00};
  static constexpr Field<std::int16_t> triangle_count{0x02};  // i16 in 000, u16 in 002 (C12)
  static constexpr Field<std::int16_t> quad_count{0x04};
  static constexpr Field<GuestAddr> vertices{0x0c};
  static constexpr Field<GuestAddr> triangles{0x14};  // 0x20 each
  static constexpr Field<GuestAddr> quads{0x18};      // 0x3c each
};

/// Face flag bits (F078).
namespace face_flags {
inline constexpr std::uint8_t kGround = 1u << 3;
inline constexpr std::uint8_t kWall = 1u << 5;
}  // namespace face_flags

/// A quad face, 0x3c bytes (002; port/CHOICES.md "Track").
class Quad : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0x3c;
  static constexpr Field<Vec3> normal{0x00};
  static constexpr Field<Vec3> normal_abc{0x0c};  // halves a b c and c d a (F133)
  static constexpr Field<Vec3> normal_cda{0x18};
  static constexpr Array<std::uint16_t> corners{0x2c, 4, 2};  // vertex numbers
  static constexpr Field<std::uint8_t> render_kind{0x34};
  static constexpr Field<std::uint8_t> flags_byte1{0x35};
  static constexpr Field<std::uint8_t> flags{0x36};    // bit 3 ground, bit 5 wall
  static constexpr Field<std::uint8_t> surface{0x37};  // surface number
};

/// A triangle face, 0x20 bytes (002; port/CHOICES.md "Track").
class Triangle : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0x20;
  static constexpr Field<Vec3> normal{0x00};
  static constexpr Array<std::uint16_t> corners{0x14, 3, 2};
  static constexpr Field<std::uint8_t> render_kind{0x1a};
  static constexpr Field<std::uint8_t> flags_byte1{0x1b};
  static constexpr Field<std::uint8_t> flags{0x1c};
  static constexpr Field<std::uint8_t> surface{0x1d};
};

/// A surface, 12 bytes, 16 of them at 0x62bc0c; the grip first (F017, F136).
class Surface : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = addr::kSurfaceSize;
  static constexpr Field<std::int32_t> grip{0x00};
  static constexpr GuestAddr at(std::uint32_t n) { return addr::kSurfaces + n * kSize; }
};

/// Input bits at driver +0x34 (chosen, G21; CHOICES "Racers, drivers and controllers").
namespace input {
inline constexpr std::uint32_t kThrottle = 0x01;
inline constexpr std::uint32_t kLeft = 0x02;
inline constexpr std::uint32_t kRight = 0x04;
inline constexpr std::uint32_t kBrake = 0x10;  // the bit the countdown forces (F027)
inline constexpr std::uint32_t kGearUp = 0x20;
inline constexpr std::uint32_t kGearDown = 0x40;
}  // namespace input

/// A prop, 0xd0 bytes, [0x621298] of them at [0x62129c] (port/CHOICES.md "Props"; F110).
/// The documents name the fields from +0x1c; the rest is chosen (G16; port/CHOICES.md "Props"). Its hull,
/// chain and health sit where a part's do, so the damage macro turns a prop into its template too.
class Prop : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0xd0;                  // F110
  static constexpr Field<GuestAddr> object{0x00};               // chosen: the type's drawn object (the renderer's)
  static constexpr Field<Fixed> mass{0x1c};
  static constexpr Field<Fixed> friction{0x20};
  static constexpr Field<Vec3> inertia{0x24};                   // per body axis
  static constexpr Field<std::int32_t> point_count{0x30};
  static constexpr Field<GuestAddr> hull{0x34};                 // a pointer (A01)
  static constexpr Field<GuestAddr> chain{0x38};                // the macro chain, 0 = none
  static constexpr Field<std::int32_t> health{0x3c};
  static constexpr std::uint32_t kMatrix = 0x40;                // 3 × 3 i32 row by row, axis k = column k (A26)
  static constexpr Field<Vec3> rest_point{0x64};                // a point of the ground plane it rests on
  static constexpr Field<GuestAddr> ground{0x70};               // chosen: the record whose first 12 bytes are that
                                                                //   plane's normal (a face, or 0x4f9440); 0 none
  static constexpr Field<Vec3> force{0x74};
  static constexpr Field<Vec3> torque{0x80};
  static constexpr Field<Vec3> velocity{0x8c};
  static constexpr Field<Vec3> position{0x98};                  // the centre of mass, world
  static constexpr Field<Vec3> spin{0xa4};                      // chosen: rad/s about the body axes 0, 1, 2
  static constexpr Field<GuestAddr> macro_list{0xb0};           // from the file; not read by the physics
  static constexpr Field<GuestAddr> wall{0xb4};                 // chosen: the wall face it touches, 0 none
  static constexpr Field<GuestAddr> points{0xb8};               // the contact points, 0x40 each (a pointer, A02)
  static constexpr Field<Vec3> wall_point{0xbc};                // chosen: a point of that wall's plane
  static constexpr Field<std::uint32_t> held{0xc8};             // chosen: 1 when a neighbour handed it its ground
  static constexpr GuestAddr at(GuestAddr list, std::uint32_t i) { return list + i * kSize; }
  /// Axis k (0, 1, 2): column k of the matrix.
  Vec3 axis(int k) const {
    const std::uint32_t c = kMatrix + 4u * static_cast<std::uint32_t>(k);
    return Vec3{get(Field<Fixed>{c}), get(Field<Fixed>{c + 12}), get(Field<Fixed>{c + 24})};
  }
  void set_axis(int k, const Vec3& v) const {
    const std::uint32_t c = kMatrix + 4u * static_cast<std::uint32_t>(k);
    set(Field<Fixed>{c}, v.x);
    set(Field<Fixed>{c + 12}, v.y);
    set(Field<Fixed>{c + 24}, v.z);
  }
  /// Contact point i's address.
  GuestAddr point(std::uint32_t i) const { return get(points) + i * 0x40u; }
};

/// A prop's contact point, 0x40 bytes (port/CHOICES.md "Props"; F110). The documents give the fields'
/// order, not their offsets (G16): packed in that order (chosen), which puts the mass at +0x1c (A29).
class PropPoint : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0x40;
  static constexpr Field<Fixed> radius{0x00};
  static constexpr Field<Vec3> offset{0x04};        // prop frame, from the centre of mass
  static constexpr Field<Vec3> place{0x10};         // world, written by the motion
  static constexpr Field<Fixed> mass{0x1c};
  static constexpr Field<Vec3> force{0x20};         // this motion's gravity and push
  static constexpr Field<Vec3> push{0x2c};
  static constexpr Field<GuestAddr> sector{0x38};
  static constexpr Field<std::uint32_t> flags{0x3c};  // kUnderGround, kUnderWall
  static constexpr std::uint32_t kUnderGround = 1;
  static constexpr std::uint32_t kUnderWall = 2;
};

/// The record at 0x4f9440 a prop resting on another rests on (F114, A30; chosen layout).
class PropRest : public RecordView {
 public:
  explicit PropRest(Memory& m) : RecordView(m, addr::kPropRest) {}
  static constexpr Field<Vec3> normal{0x00};  // unit, pointing up
  static constexpr Field<Vec3> point{0x0c};   // the contact point
};

/// The frame-time block at 0x621b70 (chosen, G31).
class FrameTime : public RecordView {
 public:
  explicit FrameTime(Memory& m) : RecordView(m, addr::kFrameTime) {}
  static constexpr Field<Fixed> dt{0x0};          // this car step's frame time, 16.16 s
  static constexpr Field<Fixed> sum{0x4};         // the frame-time sum
  static constexpr Field<Fixed> step_dt{0x8};     // the step's unscaled dt
  static constexpr Field<std::int32_t> step{0xc};  // the simulation step's number
};

/// A race path node, 0x24 bytes (port/CHOICES.md "The race's paths").
class PathNode : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0x24;
  static constexpr Field<Vec3> position{0x00};
  static constexpr Field<std::int32_t> link_count{0x0c};  // the links out
  static constexpr Field<GuestAddr> links{0x14};          // their list: link addresses
  static constexpr Field<std::int32_t> value{0x1c};
};

/// A race path link, 0x1c bytes (002; port/CHOICES.md "The race's paths"): its points are vec3 of 12 bytes, one value each.
class PathLink : public RecordView {
 public:
  using RecordView::RecordView;
  static constexpr std::uint32_t kSize = 0x1c;
  static constexpr std::uint32_t kPointSize = 12;
  static constexpr Field<GuestAddr> end{0x08};            // the end node, 0 none
  static constexpr Field<GuestAddr> start{0x0c};          // the start node
  static constexpr Field<GuestAddr> points{0x10};
  static constexpr Field<GuestAddr> values{0x14};
  static constexpr Field<std::int32_t> point_count{0x18};
};

/// The race block [0x4f8d44, 0x4f9854) (000; port/CHOICES.md "Data blocks").
class RaceBlock : public RecordView {
 public:
  explicit RaceBlock(Memory& m) : RecordView(m, addr::kRaceBlock) {}
  static constexpr std::uint32_t kSize = addr::kRaceBlockEnd - addr::kRaceBlock;
  /// Racer r's record: +0x40 + 0xbc × r (F087).
  static constexpr std::uint32_t record(int racer) {
    return addr::kRaceRecordsOffset + static_cast<std::uint32_t>(racer) * addr::kRaceRecordSize;
  }
  static constexpr Field<std::int32_t> phase{0x00};         // chosen: 1 during the countdown, 0 from "GO!"
  static constexpr Field<std::int32_t> racer_count{0x04};   // chosen: 8
  static constexpr Field<std::uint32_t> go_time{0x08};      // chosen: the millisecond value of "GO!" (the countdown's end)
  static constexpr Field<std::int32_t> catch_up_base{addr::kCatchUpBase - addr::kRaceBlock};  // F127
  static constexpr Field<GuestAddr> catch_up_target_fn{addr::kCatchUpTargetFn - addr::kRaceBlock};
};

}  // namespace pod
