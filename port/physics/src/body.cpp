// Stage 20, the body (FUN_00419ad0), and exp16.
#include "pod/body.hpp"

#include <algorithm>

#include "common.hpp"
#include "pod/tables.hpp"

namespace pod::body {

using namespace pod::detail;
using math::mul16;

// FUN_004c5ed8
Fixed exp16(Fixed x) {
  const Fixed t = mul16(x, x);
  return static_cast<Fixed>(0x10000u + static_cast<std::uint32_t>(x) + static_cast<std::uint32_t>(t >> 1));
}

namespace {
// normalise(v): n = length16(v); if n ≠ 0, each component qdiv'd by n.
Vec3 normalise(Memory& m, Vec3 v) {
  const Fixed n = tables::length16(m, v);
  if (n != 0) {
    v.x = math::qdiv(m, v.x, n);
    v.y = math::qdiv(m, v.y, n);
    v.z = math::qdiv(m, v.z, n);
  }
  return v;
}
}  // namespace

// FUN_00416284
int impacts(Memory& m, GuestAddr car, Vec3& force, Vec3& torque, std::vector<Impact>* calls) {
  const Car c(m, car);
  for (int i = 0; i < Car::kPoints; ++i) c.point(i).set(Point::impulse, Vec3{});
  // The closing speed past the allowance, when the point is pushed into a wall (> 0: hit).
  const auto closing = [&](const Point& p) -> Fixed {
    if (p.get(Point::wall_depth) <= 0) return 0;
    return wrap_sub(wrap_neg(math::dot16(p.get(Point::velocity), p.get(Point::wall_dir))), kImpactAllowance);
  };
  int hits = 0;
  for (int i = 0; i < Car::kPoints; ++i) {
    if (closing(c.point(i)) > 0) ++hits;
  }
  if (hits == 0) return 0;
  std::uint32_t parts = 0;
  Fixed shares = 0;
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    const Fixed k = closing(p);
    if (k <= 0) continue;
    const Fixed mass = c.get(Car::mass);
    const Fixed size = mul16(math::qdiv(m, mul16(k, mass), dt(m)), p.get(Point::bounce));  // F059
    const Fixed share = hits == 1 ? size : (hits == 2 ? size >> 1 : size / hits);
    const Vec3 n = p.get(Point::wall_dir);
    Vec3 j = math::scale16(n, share);
    if (hits == 1) {  // F060: friction up to 0.15 of the impulse, against the sliding along the wall
      const Vec3 v = p.get(Point::velocity);
      const Vec3 vt = sub(v, math::scale16(n, math::dot16(v, n)));
      const Fixed t = tables::length16(m, vt);
      if (t > 0) {
        const Fixed f = std::min(math::qdiv(m, mul16(t, mass), dt(m)), mul16(size, kImpactFriction));
        const Vec3 dir{math::qdiv(m, vt.x, t), math::qdiv(m, vt.y, t), math::qdiv(m, vt.z, t)};
        j = sub(j, math::scale16(dir, f));
      }
    }
    p.set(Point::impulse, j);
    force = add(force, j);
    torque = add(torque, math::cross16(sub(p.get(Point::position), c.get(Car::centre)), j));
    parts |= kImpactParts[i];
    shares = wrap_add(shares, share);
    if (hits == 1 && calls != nullptr) calls->push_back(Impact{kImpactParts[i], size >> 2});  // F099
  }
  if (hits >= 2 && calls != nullptr) calls->push_back(Impact{parts, shares >> 2});
  return hits;
}

// FUN_00416030
void push_out(Memory& m, GuestAddr car) {
  const Car c(m, car);
  Vec3 push;
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    const Fixed d = p.get(Point::wall_depth);
    if (d <= 0) continue;
    const Vec3 dir = p.get(Point::wall_dir);
    const Fixed left = wrap_sub(d, math::dot16(push, dir));
    if (left > 0) push = add(push, math::scale16(dir, left));
  }
  if (push == Vec3{}) return;
  c.set(Car::centre, add(c.get(Car::centre), push));
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    p.set(Point::position, add(p.get(Point::position), push));
  }
}

// FUN_00419ad0
void integrate(Memory& m, GuestAddr car, GuestAddr forces, std::vector<Impact>* impact_calls) {
  const Car c(m, car);
  // Outside force (air, plus weight on z) and the force carried from collisions (F057).
  Vec3 f = m.vec3(force_at(forces, 5));
  f.z = wrap_sub(f.z, c.get(Car::weight));
  f = add(f, c.get(Car::carried_force));
  Vec3 tw = c.get(Car::carried_torque);
  int wheels_down = 0;
  const Vec3 centre0 = c.get(Car::centre);
  for (int i = 0; i < Car::kPoints; ++i) {
    const Point p = c.point(i);
    if (p.get(Point::touching) == 0) continue;
    if (i < Car::kWheels) ++wheels_down;
    const Vec3 fi = m.vec3(force_at(forces, i));
    f = add(f, fi);
    // r reaches the contact, a radius below the point along its up axis (F058).
    const Vec3 contact = sub(p.get(Point::position), math::scale16(p.get(Point::up), p.get(Point::radius)));
    const Vec3 r = sub(contact, centre0);
    tw = add(tw, math::cross16(r, fi));
  }
  c.set(Car::carried_force, Vec3{});
  c.set(Car::carried_torque, Vec3{});
  impacts(m, car, f, tw, impact_calls);  // stage 21, before the yaw is taken away (F034)

  const Vec3 fwd = c.get(Car::forward);
  const Vec3 left = c.get(Car::left);
  const Vec3 up = c.get(Car::up);
  Vec3 tb{math::dot16(tw, fwd), math::dot16(tw, left), math::dot16(tw, up)};
  tb.z = wrap_sub(tb.z, mul16(tb.z, kYawRemoved));  // F061

  // Last step's touching counters: off the ground for more than two steps, and for four.
  bool off3 = true;
  bool off5 = true;
  for (int i = 0; i < Car::kWheels; ++i) {
    const std::int32_t count = c.point(i).get(Point::touch_count);
    off3 = off3 && count <= -3;
    off5 = off5 && count <= -5;
  }

  Vec3 v = c.get(Car::velocity);
  const Fixed speed = tables::length16(m, v);
  const Fixed t = dt(m);
  if (wheels_down == 0 && speed > kAirSteerSpeed) {
    f = add(f, math::scale16(left, mul16(mul16(kAirSteer, t), c.get(Car::steer))));  // F067
  }
  const Vec3 old = v;
  const Fixed mass = c.get(Car::mass);
  for (int k = 0; k < 3; ++k) v[k] = wrap_add(v[k], math::qdiv(m, mul16(f[k], t), mass));  // F062
  Vec3 centre = centre0;
  for (int k = 0; k < 3; ++k) {
    centre[k] = wrap_add(centre[k], mul16(mul16(wrap_add(old[k], v[k]) >> 1, t), kStepScale));  // F063
  }

  Vec3 w = c.get(Car::spin);
  const Vec3 inertia = c.get(Car::inertia);
  for (int k = 0; k < 3; ++k) w[k] = wrap_add(w[k], math::qdiv(m, mul16(tb[k], t), inertia[k]));
  const std::uint32_t most = std::max({uabs(w.x), uabs(w.y), uabs(w.z)});
  if (most > static_cast<std::uint32_t>(kSpinLimit)) {  // F064
    const Fixed k = math::qdiv(m, kSpinLimit, static_cast<Fixed>(most));
    for (int j = 0; j < 3; ++j) w[j] = mul16(w[j], k);
  }
  if (off3) {  // F065
    const Fixed k = exp16(wrap_neg(mul16(kAirSpinDecay, t)));
    for (int j = 0; j < 3; ++j) w[j] = mul16(w[j], k);
  }
  // F068: nearly stopped, three wheels down or more, pushed into a wall: the steering turns the car.
  if (speed < kSpotTurnSpeed && wheels_down >= 3) {
    bool walled = false;
    for (int i = 0; i < Car::kPoints && !walled; ++i) walled = c.point(i).get(Point::wall_depth) > 0;
    if (walled) w.z = mul16(c.get(Car::steer), kSpotTurnRate);
  }
  const Vec3 th{mul16(w.x, t), mul16(w.y, t), mul16(w.z, t)};
  Vec3 nf = sub(add(fwd, math::scale16(left, th.z)), math::scale16(up, th.y));
  Vec3 nl = sub(add(left, math::scale16(up, th.x)), math::scale16(fwd, th.z));
  if (off5) {  // F066
    const Fixed s2 = tables::length16(m, v);
    if (s2 > kNoseTurnSpeed) {
      const Fixed a = wrap_sub(0x10000, exp16(wrap_neg(mul16(kAirNoseTurn, t))));
      for (int k = 0; k < 3; ++k) {
        const Fixed dir = math::qdiv(m, v[k], s2);
        nf[k] = wrap_add(nf[k], mul16(wrap_sub(dir, nf[k]), a));
      }
    }
  }
  nf = normalise(m, nf);
  Vec3 nu = normalise(m, math::cross16(nf, nl));
  nl = normalise(m, math::cross16(nu, nf));

  c.set(Car::velocity, v);
  c.set(Car::centre, centre);
  c.set(Car::spin, w);
  c.set(Car::forward, nf);
  c.set(Car::left, nl);
  c.set(Car::up, nu);
}

}  // namespace pod::body
