// Shared by the per-module binding sources: how a binding is made, and each module's registration.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "lockstep/cases/declared.hpp"
#include "pod/bindings/bindings.hpp"

namespace pod::bindings::detail {

using lockstep::cases::Case;

using Body = std::function<Returned(pod::Memory&, const Case&)>;

/// A word of the original's own stack frame the port is handed (the stale slip-ratio slot): given
/// a case, its address (an empty FrameWord: none). The port's writes to those 4 bytes are the callee's
/// frame, below the case's entry esp, and are not compared, as the original's are not (a case
/// compares only what lies at or above its entry esp); every other port write is.
using FrameWord = std::function<GuestAddr(const Case&)>;

/// A binding written out: `body` reads the case's registers and bytes itself. For a function whose
/// port takes more than its arguments (a word of the case's stack frame, a value the case shows
/// elsewhere) or gives back more than its return; each such binding says why it is written out.
lockstep::cases::Binding make(GuestAddr address, std::string name, Body body, FrameWord frame_word = {});

/// A declared binding (lockstep/cases/declared.hpp): the port function takes the profile's args in
/// order (Watcom: eax, edx, ebx, ecx) after its memory and returns the profile's result; the gate's
/// bindings check holds the two together.
/// (A port function overloaded on pod::Memory& and on values is taken at its memory overload.)
template <class R, class... A>
lockstep::cases::Binding declare(GuestAddr address, std::string name, R (*fn)(pod::Memory&, A...)) {
  return lockstep::cases::declared<CaseMemory>(address, std::move(name), fn);
}
/// For a port function overloaded on what it takes: the overload of the signature `Sig` (after the
/// memory), e.g. declare_overload<Fixed(GuestAddr, GuestAddr, GuestAddr)>(…, &cars::impulse).
template <class Sig>
struct MemoryOverload;
template <class R, class... A>
struct MemoryOverload<R(A...)> {
  using type = R (*)(pod::Memory&, A...);
};
template <class Sig>
lockstep::cases::Binding declare_overload(GuestAddr address, std::string name, typename MemoryOverload<Sig>::type fn) {
  return lockstep::cases::declared<CaseMemory>(address, std::move(name), fn);
}
/// The same for a port function of its arguments alone (it reads no memory).
template <class R, class... A>
lockstep::cases::Binding declare_pure(GuestAddr address, std::string name, R (*fn)(A...)) {
  return lockstep::cases::declared<CaseMemory>(address, std::move(name), fn);
}

inline Returned ret_none() { return Returned{}; }
inline Returned ret_eax(std::int32_t v) { return Returned{static_cast<std::uint32_t>(v), 0, std::nullopt}; }

/// The stale slot of forces::grip and tyres::tyres: the word at the callee's entry esp − 0x400
/// (port/CHOICES.md "forces::grip", "tyres::tyres"; the case's in.esp is that entry esp).
inline GuestAddr stale_slot(const Case& c) { return c.in.esp - 0x400; }

/// The C library block rand() keeps its seed in, for a case that draws from it (smoke_emit). The
/// original gets it from the getter at [0x4ed728]; under the emulator that getter is the harness's
/// tls_block stub (harness/profiles/pod.toml "rand_tls"), which hands out a zeroed block at the start
/// of a harness page the port cannot know. The case shows it: the seed word (block +0x10) is a 4-byte
/// input at a page's +0x10, outside the image, the track and the case's stack, that the call also
/// writes. None found (the call draws nothing): the default block, which such a call never reads.
GuestAddr thread_block(const Case& c);

/// True when the original's call read the damage option [0x63334c]: its wall impacts called a damage
/// function that consults it (damage::hit). A stand-in whose damage function is a bare `ret` (the
/// seam the corpora from before the port held damage were captured with) reads nothing of it; there the port's
/// step, which would read the option, runs with its impacts' damage reported only. Either way the
/// port applies damage exactly where the original could have.
bool damage_consulted(const Case& c);

/// True when the original's call read the prop count [0x621298]: its collision pass has the props'
/// part. A stand-in captured before the props existed reads nothing of them; there the port's pass runs
/// without it (as damage_consulted does for the damage option).
bool props_consulted(const Case& c);

void add_math(lockstep::cases::BindingSet& set);
void add_putback(lockstep::cases::BindingSet& set);
void add_drive(lockstep::cases::BindingSet& set);
void add_forces(lockstep::cases::BindingSet& set);
void add_body(lockstep::cases::BindingSet& set);
void add_collide(lockstep::cases::BindingSet& set);
void add_step(lockstep::cases::BindingSet& set);
void add_cars(lockstep::cases::BindingSet& set);
void add_damage(lockstep::cases::BindingSet& set);
void add_props(lockstep::cases::BindingSet& set);
void add_race(lockstep::cases::BindingSet& set);
void add_setup(lockstep::cases::BindingSet& set);

}  // namespace pod::bindings::detail
