// Blind reading: collide::track (FUN_00417988, stage 24). 000 "The track" (F069..F080) and
// "Putting a car back", VALUES.md section 3. The counter's rule (A12), the lift into the
// suspension, what a point without a face keeps and what the pass resets (G12, G10) are chosen;
// see READING.md.
#include <cstdint>
#include <vector>

#include "pod/blind.hpp"
#include "pod/collide.hpp"
#include "pod/math.hpp"
#include "pod/memory.hpp"
#include "pod/putback.hpp"

namespace pod::blind::collide {
namespace {

constexpr GuestAddr kPointSize = 0xd8;
constexpr int kWheels = 4;
constexpr int kPoints = 5;

// Point fields.
constexpr GuestAddr kPosition = 0x00;
constexpr GuestAddr kSector = 0x1c;
constexpr GuestAddr kFaceMesh = 0x30;
constexpr GuestAddr kFaceNumber = 0x34;
constexpr GuestAddr kTouching = 0x3a;
constexpr GuestAddr kFaceIsQuad = 0x3b;
constexpr GuestAddr kRadius = 0x4c;
constexpr GuestAddr kExtension = 0x94;
constexpr GuestAddr kExtensionRate = 0x98;
constexpr GuestAddr kPastTop = 0xa4;
constexpr GuestAddr kDroop = 0xac;
constexpr GuestAddr kWallDepth = 0xc0;
constexpr GuestAddr kNormal = 0x24;

// Car fields.
constexpr GuestAddr kUp = 0x4bc;
constexpr GuestAddr kWheel1Sector = 0x438;
constexpr GuestAddr kCounter = 0x43c;

// World (000 "The track", 002).
constexpr GuestAddr kSectorCount = 0x57bf74;
constexpr GuestAddr kSectorTable = 0x57bf78;
constexpr GuestAddr kSectorSize = 0x3c;
constexpr GuestAddr kSectorLow = 0x10;  // A23 chosen: the low corner
constexpr GuestAddr kNeighbourCount = 0x28;
constexpr GuestAddr kNeighbourList = 0x2c;
constexpr std::uint8_t kGround = 0x08;  // face flags bit 3 (F078)

constexpr Fixed kBelow = 0x24a3d;       // 2.29 below the face (F072)
constexpr Fixed kLevelFloor = 0x31ec;   // 0.195 (F073)
constexpr Fixed kFallen = 0xa0000;      // 10 below wheel 0's sector (F080, A13 chosen)

struct Hit {
  GuestAddr face = 0;
  GuestAddr mesh = 0;
  int kind = -1;  // 0 triangle, 1 quad a b c, 2 quad c d a
  GuestAddr normal = 0;
  Fixed height = 0;
};

GuestAddr point_at(GuestAddr car, int p) { return car + static_cast<GuestAddr>(p) * kPointSize; }

GuestAddr face_address(Memory& m, GuestAddr mesh, bool quad, std::int32_t number) {
  return quad ? m.u32(mesh + 0x18) + 0x3c * static_cast<GuestAddr>(number)
              : m.u32(mesh + 0x14) + 0x20 * static_cast<GuestAddr>(number);
}

// The point's height over the face's plane (the half's normal for a quad), from its first corner.
Fixed height_over(Memory& m, GuestAddr point, GuestAddr mesh, GuestAddr face, int kind, GuestAddr& normal) {
  normal = kind == 0 ? face : face + (kind == 1 ? 0x0c : 0x18);
  const std::uint16_t corner = m.u16(face + (kind == 0 ? 0x14 : 0x2c));
  const Vec3 vertex = m.vec3(m.u32(mesh + 0x0c) + 12u * corner);
  return math::dot16(math::sub(m.vec3(point + kPosition), vertex), m.vec3(normal));
}

// Over the face, and between 2.29 below it and the point's radius above (F071, F072).
bool test_face(Memory& m, GuestAddr point, GuestAddr mesh, bool quad, std::int32_t number, Hit& hit) {
  const GuestAddr face = face_address(m, mesh, quad, number);
  const int over = quad ? ::pod::collide::over_quad(m, point, face, mesh)
                        : ::pod::collide::over_triangle(m, point, face, mesh);
  if (over == 0) return false;
  const int kind = quad ? over : 0;
  GuestAddr normal = 0;
  const Fixed h = height_over(m, point, mesh, face, kind, normal);
  if (h < -kBelow || h > m.i32(point + kRadius)) return false;
  hit = Hit{face, mesh, kind, normal, h};
  return true;
}

// The first ground face of a sector's mesh the point is on: quads, then triangles.
bool search_sector(Memory& m, GuestAddr point, GuestAddr sector, Hit& hit) {
  const GuestAddr mesh = m.u32(sector);
  const std::int32_t quads = m.u16(mesh + 4);
  for (std::int32_t i = 0; i < quads; ++i)
    if ((m.u8(face_address(m, mesh, true, i) + 0x36) & kGround) != 0 && test_face(m, point, mesh, true, i, hit))
      return true;
  const std::int32_t triangles = m.u16(mesh + 2);
  for (std::int32_t i = 0; i < triangles; ++i)
    if ((m.u8(face_address(m, mesh, false, i) + 0x1c) & kGround) != 0 && test_face(m, point, mesh, false, i, hit))
      return true;
  return false;
}

// The sectors a point searches (F069, F070): every sector in table order on a full pass, else its
// own and its neighbours in list order (-1: none).
std::vector<GuestAddr> candidates(Memory& m, GuestAddr point, bool full) {
  std::vector<GuestAddr> out;
  if (full) {
    const std::int32_t count = m.i32(kSectorCount);
    const GuestAddr table = m.u32(kSectorTable);
    for (std::int32_t i = 0; i < count; ++i) out.push_back(table + kSectorSize * static_cast<GuestAddr>(i));
    return out;
  }
  const GuestAddr own = m.u32(point + kSector);
  if (own == 0) return out;
  out.push_back(own);
  const std::int32_t n = m.i32(own + kNeighbourCount);
  const GuestAddr list = m.u32(own + kNeighbourList);
  for (std::int32_t i = 0; i < n; ++i) out.push_back(m.u32(list + 4u * static_cast<GuestAddr>(i)));
  return out;
}

// Sector search: the first candidate holding a face; else the point's sector becomes the first
// candidate whose bounds hold it (chosen); unchanged when none does.
bool find_floor(Memory& m, GuestAddr point, bool full, bool faces, Hit& hit) {
  GuestAddr holder = 0;
  for (GuestAddr sector : candidates(m, point, full)) {
    if (!::pod::putback::within_bounds(m, sector, point + kPosition)) continue;
    if (holder == 0) holder = sector;
    if (faces && search_sector(m, point, sector, hit)) {
      if (m.u32(point + kSector) != sector) m.put_u32(point + kSector, sector);
      return true;
    }
  }
  if (holder != 0 && m.u32(point + kSector) != holder) m.put_u32(point + kSector, holder);
  return false;
}

// G10 chosen: the wheel goes up its car's up axis by `lift`; its extension shrinks by as much,
// what passes the top of the travel goes to +0xa4; an extending rate is stopped.
void lift_wheel(Memory& m, GuestAddr wheel, const Vec3& up, Fixed lift) {
  Fixed h = math::wrap_sub(m.i32(wheel + kExtension), lift);
  if (h < 0) {
    if (-h > m.i32(wheel + kPastTop)) m.put_i32(wheel + kPastTop, -h);
    h = 0;
  }
  m.put_i32(wheel + kExtension, h);
  if (m.i32(wheel + kExtensionRate) > 0) m.put_i32(wheel + kExtensionRate, 0);
  m.put_vec3(wheel + kPosition, math::add(m.vec3(wheel + kPosition), math::scale16(up, lift)));
}

// The face touched: F073 a floor within 0.195 of the up axis lifts a wheel into the suspension;
// otherwise (a steep face, F074) the point is pushed out with a depth.
void touch(Memory& m, GuestAddr point, bool wheel, const Hit& hit, const Vec3& up) {
  ::pod::collide::touch_face(m, point, hit.face, hit.mesh, hit.kind);
  const Fixed depth = math::wrap_sub(m.i32(point + kRadius), hit.height);
  if (depth <= 0) return;
  const Fixed facing = math::dot16(m.vec3(hit.normal), up);
  if (wheel && facing > kLevelFloor)
    lift_wheel(m, point, up, math::qdiv(m, depth, facing));
  else
    ::pod::collide::wall_depth(m, point, hit.normal, depth);
}

// F069: last step's face first, then the sector search.
void floor_pass(Memory& m, GuestAddr car, int p, bool full, bool chassis_search, const Vec3& up) {
  const GuestAddr point = point_at(car, p);
  Hit hit;
  if (p == kWheels) {  // the chassis point: only its sector (its floors come with the walls)
    if (chassis_search) find_floor(m, point, full, false, hit);
    return;
  }
  const GuestAddr mesh = m.u32(point + kFaceMesh);
  const bool again = mesh != 0 &&
      test_face(m, point, mesh, m.u8(point + kFaceIsQuad) != 0, m.i32(point + kFaceNumber), hit);
  if (again || find_floor(m, point, full, true, hit)) touch(m, point, true, hit, up);
}

// F077: with 2 or 3 wheels down a free wheel is tested hanging at full droop on each touching
// wheel's plane (chosen: the plane through that wheel's contact); the deepest sets where it sits.
void free_wheels(Memory& m, GuestAddr car, const Vec3& up) {
  int down = 0;
  for (int w = 0; w < kWheels; ++w) down += m.u8(point_at(car, w) + kTouching) != 0 ? 1 : 0;
  if (down < 2 || down > 3) return;
  for (int f = 0; f < kWheels; ++f) {
    const GuestAddr wheel = point_at(car, f);
    if (m.u8(wheel + kTouching) != 0) continue;
    const Fixed slack = math::wrap_sub(m.i32(wheel + kDroop), m.i32(wheel + kExtension));
    const Vec3 hanging = math::sub(m.vec3(wheel + kPosition), math::scale16(up, slack));
    const Fixed radius = m.i32(wheel + kRadius);
    Fixed deepest = 0;
    for (int t = 0; t < kWheels; ++t) {
      const GuestAddr other = point_at(car, t);
      if (m.u8(other + kTouching) == 0) continue;
      const Vec3 n = m.vec3(other + kNormal);
      const Vec3 contact = math::sub(m.vec3(other + kPosition), math::scale16(n, m.i32(other + kRadius)));
      const Fixed depth = math::wrap_sub(radius, math::dot16(math::sub(hanging, contact), n));
      if (depth > deepest) deepest = depth;
    }
    if (deepest > 0) lift_wheel(m, wheel, up, math::wrap_sub(deepest, slack));
  }
}

// F076: each distinct sector of the five points, in point order; each against every point.
void walls(Memory& m, GuestAddr car) {
  std::vector<GuestAddr> sectors;
  for (int p = 0; p < kPoints; ++p) {
    const GuestAddr s = m.u32(point_at(car, p) + kSector);
    bool seen = s == 0;
    for (GuestAddr t : sectors) seen = seen || t == s;
    if (!seen) sectors.push_back(s);
  }
  for (GuestAddr s : sectors)
    for (int p = 0; p < kPoints; ++p) ::pod::collide::push_faces(m, point_at(car, p), s, car);
}

// The pass starts clean (chosen): no point touching, no wall depth, no wheel past its top.
void reset(Memory& m, GuestAddr car) {
  for (int p = 0; p < kPoints; ++p) {
    const GuestAddr point = point_at(car, p);
    m.put_u8(point + kTouching, 0);
    m.put_i32(point + kWallDepth, 0);
    if (p < kWheels) m.put_i32(point + kPastTop, 0);
  }
}

bool found_anything(Memory& m, GuestAddr car) {
  for (int p = 0; p < kPoints; ++p) {
    const GuestAddr point = point_at(car, p);
    if (m.u8(point + kTouching) != 0 || m.i32(point + kWallDepth) > 0) return true;
  }
  return false;
}

void note_wheel1_sector(Memory& m, GuestAddr car) {
  const GuestAddr s = m.u32(point_at(car, 1) + kSector);
  const std::int32_t number = s == 0 ? -1 : static_cast<std::int32_t>((s - m.u32(kSectorTable)) / kSectorSize);
  m.put_i32(car + kWheel1Sector, number);
}

}  // namespace

bool track(Memory& m, GuestAddr car, GuestAddr driver) {
  // A12 chosen: the racer's counter counts every call; a full search when it reaches a multiple of 4.
  const std::int32_t counter = m.i32(car + kCounter) + 1;
  m.put_i32(car + kCounter, counter);
  const bool full = (counter & 3) == 0;
  const bool chassis_search = ::pod::collide::chassis_searches(m, car);
  const Vec3 up = m.vec3(car + kUp);
  reset(m, car);
  for (int p = 0; p < kPoints; ++p) floor_pass(m, car, p, full, chassis_search, up);
  note_wheel1_sector(m, car);
  free_wheels(m, car, up);
  walls(m, car);
  // F080: nothing found and the car (wheel 0, chosen) 10 below wheel 0's sector's low corner.
  if (found_anything(m, car)) return false;
  const GuestAddr wheel0 = point_at(car, 0);
  const GuestAddr sector = m.u32(wheel0 + kSector);
  if (sector == 0) return false;
  const Fixed floor = m.i32(sector + kSectorLow + 8);
  if (m.i32(wheel0 + kPosition + 8) >= math::wrap_sub(floor, kFallen)) return false;
  ::pod::putback::put_back(m, car, driver);
  return true;
}

}  // namespace pod::blind::collide
