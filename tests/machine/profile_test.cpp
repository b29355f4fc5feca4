// The profile reader and labels.
#include <gtest/gtest.h>

#include <variant>

#include "lockstep/profile/labels.hpp"
#include "lockstep/profile/profile.hpp"
#include "lockstep/profile/values.hpp"

namespace lockstep::harness {
namespace {

constexpr const char* kGood = R"(
[profile]
name = "t"
fpu_control_word = 0x027f

[[function]]
address = 0x41b66c
name = "step::step"
original = "FUN_0041b66c"
convention = "watcom"
args = ["car:ptr", "driver:ptr"]
returns = "eax"

[[function]]
address = 0x401000
name = "odd"
convention = "custom"
registers = ["esi", "edi"]
args = ["x:f64"]
returns = "st0"

[[stub]]
name = "sound"
address = 0x4b8d64
action = "ret"
why = "sound only"

[[stub]]
name = "tls"
pointer = 0x4ed728
action = "handler"
handler = "tls_block"
block_size = 0x40
why = "seed"

[[stub]]
name = "controller"
address = 0x422000
action = "value"
value = 7
pop = 4
why = "recorded"

[[struct]]
name = "point"
size = 0xd8
fields = [
  { offset = 0x00, size = 12, name = "position" },
  { offset = 0x38, size = 1, name = "sliding" },
]

[[struct]]
name = "car"
size = 0x558
fields = [
  { offset = 0x000, struct = "point", count = 5, name = "point" },
  { offset = 0x440, size = 4, name = "engine_speed" },
  { offset = 0x4ec, size = 4, name = "controller_word", chosen = true },
]

[[instance]]
name = "car"
struct = "car"
base = 0x630838
count = 8

[[label]]
name = "round_constant"
address = 0x4ee0c0
size = 8

[[driver]]
name = "car_step"
function = "step::step"
args = ["car", 5]
stubs = ["controller"]
)";

TEST(Profile, ReadsEverySection) {
  auto p = parse_profile(kGood, "t.toml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->fpu_control_word, 0x027f);
  ASSERT_EQ(p->functions.size(), 2u);
  EXPECT_EQ(p->functions[0].convention.kind, Convention::kWatcom);
  EXPECT_EQ(p->functions[0].args[1].type, ArgType::kPtr);
  EXPECT_EQ(p->functions[1].convention.registers, (std::vector<Reg>{Reg::kEsi, Reg::kEdi}));
  EXPECT_EQ(p->functions[1].returns, ReturnKind::kSt0);
  EXPECT_EQ(*p->find_function("FUN_0041b66c"), &p->functions[0]);
  EXPECT_EQ(*p->find_function("0x41b66c"), &p->functions[0]);
  EXPECT_FALSE(p->find_function("step::stp").ok());
  ASSERT_EQ(p->stubs.size(), 3u);
  EXPECT_EQ(p->stubs[1].pointer, std::optional<GuestAddr>(0x4ed728));
  EXPECT_EQ(p->stubs[1].action, StubSpec::Action::kTlsBlock);
  EXPECT_TRUE(p->stubs[0].active);
  EXPECT_FALSE(p->stubs[2].active);  // named by a driver: off until it runs
  ASSERT_EQ(p->drivers.size(), 1u);
  EXPECT_EQ(p->drivers[0].function, 0x41b66cu);
  EXPECT_EQ(p->drivers[0].args[0].instance, "car");
  EXPECT_EQ(p->drivers[0].args[1].value, 5u);
  EXPECT_EQ(p->struct_by_name("car")->fields[0].size, 0xd8u * 5);
}

TEST(Profile, ErrorsNameTheLine) {
  auto bad = [](std::string text, std::string want) {
    auto p = parse_profile(text, "x.toml");
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.error().code, Errc::kMalformed);
    EXPECT_NE(p.error().message.find(want), std::string::npos) << p.error().message;
  };
  bad("[[function]]\naddress = 1\nname = \"a\"\nadress = 2\nconvention = \"cdecl\"\nreturns = \"none\"\n", "x.toml:4: [[function]] #1: unknown key 'adress'");
  bad("[profile]\nnam = \"x\"\n", "x.toml:2: [profile]: unknown key 'nam'");
  bad("[[stub]]\nname = \"s\"\naddress = 1\naction = \"ret\"\n", "missing key 'why'");
  bad("[[stub]]\nname = \"s\"\naddress = 1\npointer = 2\naction = \"ret\"\nwhy = \"w\"\n", "exactly one");
  bad("[[function]]\naddress = 1\nname = \"a\"\nconvention = \"pascal\"\nreturns = \"none\"\n", "x.toml:4");
  bad("[[function]]\naddress = 1\nname = \"a\"\nconvention = \"cdecl\"\nreturns = \"none\"\nargs = [\"x:u8\"]\n", "kind 'u8'");
  bad("[[struct]]\nname = \"s\"\nsize = 4\nfields = [ { offset = 2, size = 4, name = \"f\" } ]\n", "runs past");
  bad("[[instance]]\nname = \"i\"\nstruct = \"nope\"\nbase = 0\n", "unknown struct 'nope'");
  bad("[[driver]]\nname = \"d\"\nfunction = 1\nstubs = [\"nope\"]\n", "no [[stub]] named 'nope'");
  bad("[[driver]]\nname = \"d\"\nfunction = 1\nargs = [\"car\"]\n", "no [[instance]]");
  bad("wat = 1\n", "x.toml:1: unknown top-level key 'wat'");
  bad("[[function]]\naddress = -1\nname = \"a\"\n", "outside");
  bad("[profile\n", "x.toml:1");
}

// No silent defaults: a function without its convention or its return kind is refused, naming the file,
// the line and what to write (a convention taken for granted misplaces every argument; a return kind
// taken for granted leaves the result uncompared).
TEST(Profile, ConventionAndReturnsAreRequired) {
  auto p = parse_profile("[profile]\nname = \"g\"\n\n[[function]]\naddress = 0x401000\nname = \"tank::move\"\n"
                         "returns = \"eax\"\n",
                         "game.toml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, Errc::kMalformed);
  EXPECT_NE(p.error().message.find("game.toml:4: [[function]] #1: missing key 'convention'"), std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find("convention = \"cdecl\""), std::string::npos) << p.error().message;
  p = parse_profile("[[function]]\naddress = 0x401000\nname = \"tank::move\"\nconvention = \"fastcall\"\n", "game.toml");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("game.toml:1: [[function]] #1: missing key 'returns'"), std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find("returns = \"none\""), std::string::npos) << p.error().message;
  // Written out, "none" is taken as it says.
  p = parse_profile("[[function]]\naddress = 0x401000\nname = \"m\"\nconvention = \"fastcall\"\nreturns = \"none\"\n",
                    "game.toml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->functions[0].returns, ReturnKind::kNone);
  EXPECT_EQ(p->functions[0].convention.kind, Convention::kFastcall);
}

// What a hostile profile got through before: each is refused with the file, line and place.
TEST(Profile, RefusesDuplicatesOverlapsCyclesAndWraps) {
  auto bad = [](std::string text, std::string want) {
    auto p = parse_profile(text, "x.toml");
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.error().code, Errc::kMalformed);
    EXPECT_NE(p.error().message.find(want), std::string::npos) << p.error().message;
    EXPECT_EQ(p.error().message.rfind("x.toml:", 0), 0u) << p.error().message;
  };
  const std::string stub = "action = \"ret\"\nwhy = \"w\"\n";
  bad("[[label]]\nname = \"l\"\naddress = 1\n[[label]]\nname = \"l\"\naddress = 2\n",
      "label 'l' is already defined at line 1");
  bad("[[stub]]\nname = \"a\"\naddress = 16\n" + stub + "[[stub]]\nname = \"b\"\naddress = 16\n" + stub,
      "0x00000010 is already stub 'a'");
  bad("[[struct]]\nname = \"s\"\nsize = 8\nfields = [ { offset = 0, size = 4, name = \"f\" }, "
      "{ offset = 4, size = 4, name = \"f\" } ]\n",
      "field name 'f' is used twice");
  bad("[[struct]]\nname = \"s\"\nsize = 8\nfields = [ { offset = 0, size = 4, name = \"f\" }, "
      "{ offset = 2, size = 4, name = \"g\" } ]\n",
      "fields 'f' (0x0+0x4) and 'g' (0x2) overlap");
  bad("[[struct]]\nname = \"a\"\nsize = 8\nfields = [ { offset = 0, struct = \"b\", name = \"b\" } ]\n"
      "[[struct]]\nname = \"b\"\nsize = 8\nfields = [ { offset = 0, struct = \"a\", name = \"a\" } ]\n",
      "cycle: a -> b -> a");
  bad("[[label]]\nname = \"l\"\naddress = 0xfffffff0\nsize = 0x20\n", "runs past 4 GiB");
  bad("[[stub]]\nname = \"a\"\naddress = 16\naction = \"ret\"\nwhy = \"   \"\n", "must say why");
  bad("[[struct]]\nname = \"s\"\nsize = 0\n", "size 0");
  bad("[[function]]\naddress = 1\nname = \"a\"\nconvention = \"cdecl\"\nreturns = \"none\"\nargs = [\"x\"]\n", "must be \"name:kind\"");
  bad("[[function]]\naddress = 1\nname = \"a\"\nconvention = \"cdecl\"\nreturns = \"none\"\n[[function]]\naddress = 1\nname = \"b\"\nconvention = \"cdecl\"\nreturns = \"none\"\n",
      "0x00000001 is already function 'a'");
}

// --arg/--poke addresses: a sum past 4 GiB is refused, never wrapped to a low address.
TEST(Labels, AddressesNeverWrap) {
  auto p = parse_profile(kGood, "t.toml");
  ASSERT_TRUE(p.ok());
  Labeler l(*p);
  const GuestAddr car3 = 0x630838 + 3 * 0x558;
  EXPECT_EQ(*l.resolve("car[3]+0x20"), car3 + 0x20);
  EXPECT_FALSE(l.resolve("car[3]+0xffffffff").ok());
  EXPECT_FALSE(l.resolve("0xfffffff0+0x10").ok());
  EXPECT_FALSE(l.resolve("round_constant+0xffffffff").ok());
  EXPECT_FALSE(l.resolve("car[-1]").ok());
  EXPECT_FALSE(l.resolve("-1").ok());
  EXPECT_FALSE(parse_poke("car[3]+0xffffffff=00", l).ok());
  EXPECT_FALSE(parse_poke("0xffffffff=0000", l).ok());  // the second byte would land at 0
  EXPECT_TRUE(parse_poke("0xffffffff=00", l).ok());
}

// An integer argument may be negative (two's complement); an address may not.
TEST(Labels, NegativeArgumentsAreTwosComplement) {
  auto p = parse_profile(kGood, "t.toml");
  ASSERT_TRUE(p.ok());
  Labeler l(*p);
  auto u32_of = [&](std::string_view text) -> std::uint32_t {
    auto a = parse_call_arg(text, ArgType::kI32, l);
    EXPECT_TRUE(a.ok()) << text;
    return a.ok() ? a->word : 0;
  };
  EXPECT_EQ(u32_of("-3"), 0xfffffffdu);
  EXPECT_EQ(u32_of("-0x10000"), 0xffff0000u);
  EXPECT_EQ(u32_of("-2147483648"), 0x80000000u);
  EXPECT_FALSE(parse_call_arg("-2147483649", ArgType::kI32, l).ok());
  EXPECT_FALSE(parse_call_arg("-", ArgType::kI32, l).ok());
  EXPECT_FALSE(parse_call_arg("-car[3]", ArgType::kI32, l).ok());
  EXPECT_FALSE(l.resolve("-3").ok());
}

TEST(Profile, NumbersParse) {
  EXPECT_EQ(*parse_u32("0x41b66c"), 0x41b66cu);
  EXPECT_EQ(*parse_u32("12"), 12u);
  EXPECT_EQ(*parse_u32("-1"), 0xffffffffu);
  EXPECT_FALSE(parse_u32("0x1g").ok());
  EXPECT_FALSE(parse_u32("0x100000000").ok());
  EXPECT_FALSE(parse_u32("").ok());
}

TEST(Labels, NameBytesByInstanceFieldAndLabel) {
  auto p = parse_profile(kGood, "t.toml");
  ASSERT_TRUE(p.ok());
  Labeler l(*p);
  const GuestAddr car3 = 0x630838 + 3 * 0x558;
  EXPECT_EQ(l.name(car3 + 0x440), "car[3]+0x440 engine_speed");
  EXPECT_EQ(l.name(car3 + 0x441), "car[3]+0x441 engine_speed+1");
  const GuestAddr car2 = 0x630838 + 2 * 0x558;
  EXPECT_EQ(l.name(car2 + 0xd8 + 0x38), "car[2]+0x110 point[1].sliding");
  EXPECT_EQ(l.name(car2 + 0xd8 + 0x39), "car[2]+0x111 point[1]");
  EXPECT_EQ(l.name(car3 + 0x500), "car[3]+0x500");
  EXPECT_EQ(l.name(0x4ee0c4), "round_constant+0x4");
  EXPECT_EQ(l.name(0x4ee0c0), "round_constant");
  EXPECT_EQ(l.name(0x4f3310), "0x004f3310");
  const FieldRef f = l.field(car3 + 0x442);
  EXPECT_EQ(f.start, car3 + 0x440);
  EXPECT_EQ(f.size, 4u);
  EXPECT_EQ(f.text(), "car[3]+0x440 engine_speed");
  EXPECT_TRUE(l.field(car3 + 0x4ec).chosen);
  EXPECT_EQ(l.name(0x630838 + 8 * 0x558), "0x006332f8");  // one past the last car (0x630838 + 8 x 0x558)
}

TEST(Profile, PodProfileLoads) {
  auto p = load_profile(LOCKSTEP_SOURCE_DIR "/harness/profiles/pod.toml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->fpu_control_word, 0x027f);
  ASSERT_NE(p->driver_for_record("CTRL"), nullptr);
  // The racer's turn (the car step 0x41b66c, then upside-down and pose with wheel roll), so that a
  // PHYS record holds what the racer's whole turn wrote: the profile's chosen entry at 0x49a800.
  EXPECT_EQ(p->driver_for_record("CTRL")->function, 0x49a800u);
  // 000's recording points: the simulation step's entry, 0x41b6f6, the car step's return, the pass.
  ASSERT_EQ(p->record_points.size(), 4u);
  EXPECT_EQ(p->record_points[0].tag, "STEP");
  EXPECT_EQ(p->record_points[0].address, 0x49a89cu);
  EXPECT_EQ(p->record_points[1].address, 0x41b6f6u);
  EXPECT_EQ(p->record_points[2].where, RecordWhere::kReturn);
  EXPECT_EQ(p->record_points[2].address, 0x41b66cu);
  EXPECT_EQ(p->record_points[3].tag, "FRAM");
}

/// Registers and memory for evaluating recording points without a process.
class FakeHit final : public RecordEnvironment {
 public:
  std::uint64_t reg(std::string_view name) const override {
    const std::uint64_t rax = 0x1234'0000'0000ull + 0x630838 + 3 * 0x558;  // car[3], high bits set
    return name == "eax" ? (rax & 0xffffffffu) : name == "rax" ? rax : 0;
  }
  Result<std::uint64_t> load(std::uint64_t address, unsigned size) const override {
    if (address == 0x621b7c && size == 4) return 0xfffffffeull;  // i32 -2
    return Error::make(Errc::kIo, "0x{:x} is not mapped", address);
  }
};

std::string with_record(const std::string& record) { return std::string(kGood) + "\n[[record]]\n" + record; }

TEST(Profile, RecordPointsParseAndEvaluate) {
  auto p = parse_profile(with_record(R"toml(tag = "PHYS"
at = "step::step"
point = "return"
instance = "index(eax, car)"
step = "i32(0x621b70+0xc) * 2 - 1"
blocks = ["car[instance]", "round_constant", "0x4f3310:4", { each = "2", at = "0x500000 + i * 0x10", size = "8" }]
)toml"),
                         "t.toml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->record_points.size(), 1u);
  const RecordPointSpec& r = p->record_points[0];
  EXPECT_EQ(r.where, RecordWhere::kReturn);
  EXPECT_EQ(r.address, 0x41b66cu);
  FakeHit hit;
  auto racer = r.instance->evaluate(hit);
  ASSERT_TRUE(racer.ok()) << racer.error().message;
  EXPECT_EQ(*racer, 3);  // (eax - 0x630838) / 0x558
  hit.instance = *racer;
  auto step = r.step.evaluate(hit);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(*step, -5);  // -2 * 2 - 1: i32 sign-extends
  ASSERT_EQ(r.blocks.size(), 4u);
  EXPECT_EQ(*r.blocks[0].at.evaluate(hit), 0x630838 + 3 * 0x558);
  EXPECT_EQ(r.blocks[0].at.natural_size, 0x558u);  // an element's own size
  EXPECT_EQ(r.blocks[1].at.natural_size, 8u);      // a label's
  hit.i = 1;
  EXPECT_EQ(*r.blocks[3].at.evaluate(hit), 0x500010);
  // A pointer into the middle of an element, or past the instance: no racer (the record is skipped).
  auto mid = parse_profile(with_record("tag = \"CTRL\"\nat = 0x401000\ninstance = \"index(eax + 4, car)\"\n"
                                       "step = \"0\"\nblocks = [\"car[instance]\"]\n"),
                           "t.toml");
  ASSERT_TRUE(mid.ok()) << mid.error().message;
  EXPECT_FALSE(mid->record_points[0].instance->evaluate(hit).ok());
  auto unmapped = parse_profile(with_record("tag = \"STEP\"\nat = 0x401000\nstep = \"u32(0x10)\"\nblocks = [\"car\"]\n"),
                                "t.toml");
  ASSERT_TRUE(unmapped.ok());
  EXPECT_FALSE(unmapped->record_points[0].step.evaluate(hit).ok());
}

TEST(Profile, RecordPointsRefuseBadTables) {
  const std::pair<const char*, const char*> bad[] = {
      {"tag = \"STEP\"\nat = 0x401000\nstep = \"0\"\nblocks = [\"car\"]\nwhere = 1\n", "unknown key 'where'"},
      {"tag = \"STEP\"\nat = 0x401000\ninstance = \"0\"\nstep = \"0\"\nblocks = [\"car\"]\n", "STEP record has no instance"},
      {"tag = \"CTRL\"\nat = 0x401000\nstep = \"0\"\nblocks = [\"car\"]\n", "needs 'instance'"},
      // A FRAM record carries its pass number in a field of its own, not in the instance field.
      {"tag = \"FRAM\"\nat = 0x401000\nstep = \"0\"\nblocks = [\"car\"]\n", "needs 'pass'"},
      {"tag = \"FRAM\"\nat = 0x401000\ninstance = \"hits\"\nstep = \"0\"\nblocks = [\"car\"]\n",
       "FRAM record has no instance"},
      {"tag = \"PHYS\"\nat = 0x401000\ninstance = \"0\"\npass = \"hits\"\nstep = \"0\"\nblocks = [\"car\"]\n",
       "only a FRAM record takes 'pass'"},
      {"tag = \"STEP\"\nat = 0x401000\npass = \"hits\"\nstep = \"0\"\nblocks = [\"car\"]\n", "STEP record has no pass"},
      // The record's instance is the variable `instance`; the POD word `racer` is no variable.
      {"tag = \"CTRL\"\nat = 0x401000\ninstance = \"0\"\nstep = \"0\"\nblocks = [\"car[racer]\"]\n",
       "'racer' is no register, variable (instance, hits, i)"},
      {"tag = \"STEPS\"\nat = 0x401000\nstep = \"0\"\nblocks = [\"car\"]\n", "'tag' must be one of"},
      {"tag = \"STEP\"\nat = \"no::such\"\nstep = \"0\"\nblocks = [\"car\"]\n", "no::such"},
      {"tag = \"STEP\"\nat = 0x401000\nstep = \"frame + \"\nblocks = [\"car\"]\n", "frame"},
      {"tag = \"STEP\"\nat = 0x401000\nstep = \"(1\"\nblocks = [\"car\"]\n", "missing ')'"},
      {"tag = \"STEP\"\nat = 0x401000\nstep = \"0\"\nblocks = [\"0x500000\"]\n", "needs a size"},
      {"tag = \"STEP\"\nat = 0x401000\nstep = \"0\"\nblocks = []\n", "non-empty"},
      {"tag = \"STEP\"\nat = 0x401000\nblocks = [\"car\"]\n", "missing key 'step'"},
  };
  for (const auto& [table, why] : bad) {
    auto p = parse_profile(with_record(table), "t.toml");
    ASSERT_FALSE(p.ok()) << table;
    EXPECT_EQ(p.error().code, Errc::kMalformed) << table;
    EXPECT_NE(p.error().message.find(why), std::string::npos) << p.error().message;
  }
}

// Values (harness/docs/profile.md, "Values"): the expected bytes are IEEE 754's encodings and
// 16.16's definition (value x 65536), worked by hand.
std::vector<std::uint8_t> bytes_of(std::string_view text) {
  auto v = parse_value(text);
  EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message);
  return v.ok() ? v->bytes : std::vector<std::uint8_t>{};
}

TEST(Values, TypedValuesAreTheirLittleEndianBytes) {
  using B = std::vector<std::uint8_t>;
  EXPECT_EQ(bytes_of("00001000"), (B{0x00, 0x00, 0x10, 0x00}));  // hex bytes in memory order, as before
  EXPECT_EQ(bytes_of("hex:0a0b"), (B{0x0a, 0x0b}));
  EXPECT_EQ(bytes_of("u32:7"), (B{7, 0, 0, 0}));
  EXPECT_EQ(bytes_of("i32:-3"), (B{0xfd, 0xff, 0xff, 0xff}));
  EXPECT_EQ(bytes_of("i16:-200"), (B{0x38, 0xff}));
  EXPECT_EQ(bytes_of("u16:0xffff"), (B{0xff, 0xff}));
  EXPECT_EQ(bytes_of("u8:255"), (B{0xff}));
  EXPECT_EQ(bytes_of("i8:-128"), (B{0x80}));
  EXPECT_EQ(bytes_of("f32:0.01"), (B{0x0a, 0xd7, 0x23, 0x3c}));        // 0x3c23d70a
  EXPECT_EQ(bytes_of("f32:-2"), (B{0x00, 0x00, 0x00, 0xc0}));          // 0xc0000000
  EXPECT_EQ(bytes_of("f64:1.5"), (B{0, 0, 0, 0, 0, 0, 0xf8, 0x3f}));   // 0x3ff8000000000000
  EXPECT_EQ(bytes_of("f64:0x1.8p1"), (B{0, 0, 0, 0, 0, 0, 0x08, 0x40})); // 3.0
  EXPECT_EQ(bytes_of("fx:-200.0"), (B{0x00, 0x00, 0x38, 0xff}));       // -200 x 65536 = 0xff380000
  EXPECT_EQ(bytes_of("fx:-8.0"), (B{0x00, 0x00, 0xf8, 0xff}));         // not the same as -200
  EXPECT_EQ(bytes_of("fx:0.5"), (B{0x00, 0x80, 0x00, 0x00}));
  EXPECT_EQ(bytes_of("fx:32767.99998"), (B{0xff, 0xff, 0xff, 0x7f}));  // 0x7fffffff: the largest
  EXPECT_EQ(bytes_of("fx:-32768"), (B{0x00, 0x00, 0x00, 0x80}));
  EXPECT_EQ(bytes_of("f32:nan").size(), 4u);  // written out: a NaN on purpose
}

TEST(Values, OutOfRangeValuesAreRefusedSayingWhy) {
  const std::pair<const char*, const char*> bad[] = {
      {"f64:1e400", "past a double's range"},
      {"f64:1e-400", "below a double's smallest subnormal"},
      {"f32:1e39", "past a float's range"},
      {"f32:1e-50", "below a float's smallest subnormal"},
      {"fx:nan", "holds no inf or nan"},
      {"fx:inf", "holds no inf or nan"},
      {"fx:40000.0", "does not fit 16.16 fixed point"},
      {"fx:-32768.00001", "does not fit 16.16 fixed point"},
      {"u8:256", "does not fit 8 bits unsigned (0 .. 255)"},
      {"i16:40000", "does not fit 16 bits signed (-32768 .. 32767)"},
      {"i16:-32769", "does not fit 16 bits signed"},
      {"u32:-1", "is not an unsigned integer"},
      {"u32:4294967296", "does not fit 32 bits unsigned"},
      {"f32:1.5x", "is not a number"},
      {"f32: 1", "is not a number"},
      {"f16:1", "unknown value type 'f16'"},
      {"0g", "is not hex"},
  };
  for (const auto& [text, says] : bad) {
    auto v = parse_value(text);
    ASSERT_FALSE(v.ok()) << text;
    EXPECT_EQ(v.error().code, Errc::kUsage) << text;
    EXPECT_NE(v.error().message.find(says), std::string::npos) << text << ": " << v.error().message;
  }
}

TEST(Labels, FieldsByNameAndTypedPokes) {
  auto p = parse_profile(kGood, "t.toml");
  ASSERT_TRUE(p.ok());
  Labeler l(*p);
  const GuestAddr car3 = 0x630838 + 3 * 0x558, car2 = 0x630838 + 2 * 0x558;
  EXPECT_EQ(*l.resolve("car[3].engine_speed"), car3 + 0x440);
  EXPECT_EQ(*l.resolve("car.engine_speed"), 0x630838u + 0x440);
  EXPECT_EQ(*l.resolve("car[2].point[1].sliding"), car2 + 0xd8 + 0x38);
  EXPECT_EQ(*l.resolve("car[2].point[1]"), car2 + 0xd8);          // a nested record: its first byte
  EXPECT_EQ(*l.resolve("car[2].point[1].position+4"), car2 + 0xd8 + 4);
  EXPECT_EQ(l.resolve_target("car[2].point[1]")->field_size, 0xd8u);
  auto unknown = l.resolve("car[3].engine_sped");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("car has no field 'engine_sped' (fields: point[0].position"), std::string::npos)
      << unknown.error().message;
  auto plus = l.resolve("car[3]+engine_speed");
  ASSERT_FALSE(plus.ok());
  EXPECT_NE(plus.error().message.find("a field is named after a '.': car[3].engine_speed"), std::string::npos)
      << plus.error().message;

  auto poke = parse_poke("car[1].engine_speed=fx:-200.0", l);
  ASSERT_TRUE(poke.ok()) << poke.error().message;
  EXPECT_EQ(poke->address, 0x630838u + 0x558 + 0x440);
  EXPECT_EQ(poke->bytes, (std::vector<std::uint8_t>{0x00, 0x00, 0x38, 0xff}));
  EXPECT_EQ(parse_poke("car[1].engine_speed=00001000", l)->bytes.size(), 4u);  // hex, as before
  auto wide = parse_poke("car[1].engine_speed=f64:1", l);
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.error().message.find("car[1].engine_speed is 4 byte(s), the value 8"), std::string::npos)
      << wide.error().message;
  auto nan = parse_poke("car[1].engine_speed=fx:nan", l);
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.error().message.find("poke 'car[1].engine_speed=fx:nan': 'fx:nan': 16.16 fixed point holds no inf"),
            std::string::npos)
      << nan.error().message;
}

// REG=VALUE: the poke parser's register form, a register poke and never a memory one.
TEST(Labels, RegisterPokesSetEntryRegisters) {
  auto p = parse_profile(kGood, "t.toml");
  ASSERT_TRUE(p.ok());
  Labeler l(*p);
  auto reg = [&](std::string_view text) -> cases::RegisterPoke {
    auto poke = parse_state_poke(text, l);
    EXPECT_TRUE(poke.ok()) << text << ": " << (poke.ok() ? "" : poke.error().message);
    if (!poke.ok() || !std::holds_alternative<cases::RegisterPoke>(*poke)) {
      ADD_FAILURE() << text << " is not a register poke";
      return {};
    }
    return std::get<cases::RegisterPoke>(*poke);
  };
  EXPECT_EQ(reg("eax=0x10"), (cases::RegisterPoke{cases::Reg::kEax, 0x10}));
  EXPECT_EQ(reg("ebp=4096"), (cases::RegisterPoke{cases::Reg::kEbp, 4096}));
  EXPECT_EQ(reg("ecx=-1"), (cases::RegisterPoke{cases::Reg::kEcx, 0xffffffff}));
  EXPECT_EQ(reg("edx=-0x80000000"), (cases::RegisterPoke{cases::Reg::kEdx, 0x80000000}));
  EXPECT_EQ(reg("esi=0xffffffff"), (cases::RegisterPoke{cases::Reg::kEsi, 0xffffffff}));
  EXPECT_EQ(reg("edi=fx:1.5"), (cases::RegisterPoke{cases::Reg::kEdi, 0x18000}));        // 1.5 * 65536
  EXPECT_EQ(reg("ebx=i16:-3"), (cases::RegisterPoke{cases::Reg::kEbx, 0xfffffffd}));    // sign-extended, as C passes it
  EXPECT_EQ(reg("eax=f32:1"), (cases::RegisterPoke{cases::Reg::kEax, 0x3f800000}));     // the float's bit pattern

  // The memory form comes out of the same parser as a memory poke.
  auto mem = parse_state_poke("car[1].engine_speed=fx:-200.0", l);
  ASSERT_TRUE(mem.ok()) << mem.error().message;
  ASSERT_TRUE(std::holds_alternative<cases::Poke>(*mem));
  EXPECT_EQ(std::get<cases::Poke>(*mem).address, 0x630838u + 0x558 + 0x440);

  auto refused = [&](std::string_view text, std::string_view says) {
    auto poke = parse_state_poke(text, l);
    ASSERT_FALSE(poke.ok()) << text;
    EXPECT_EQ(poke.error().code, Errc::kUsage) << text;
    EXPECT_NE(poke.error().message.find(says), std::string::npos) << text << ": " << poke.error().message;
  };
  // Registers no poke sets: said so, naming the ones it can, not looked up as labels.
  for (const char* text : {"esp=0x1000", "eip=0", "ax=1", "al=1"})
    refused(text, "is not a register a poke can set (a register poke sets one of eax, ebx, ecx, edx, esi, edi, ebp");
  // A value no 32-bit register holds.
  refused("eax=0x100000000", "does not fit in 32 bits");
  refused("eax=-0x80000001", "does not fit in 32 bits");
  refused("eax=4294967296", "does not fit in 32 bits");
  refused("eax=f64:1", "eax holds 4 bytes, the value 8");
  refused("eax=u8:256", "u8:256");
  refused("eax=zz", "'zz' is not a number (decimal or 0x-hex); eax takes a 32-bit number (0x3000, 12288, -1) or a "
                    "typed value of at most 4 bytes (u32:7, i16:-3, f32:0.5, fx:1.5)");
  refused("eax=", "'' is not a number");
  refused("eax=00001000", "'00001000' has a leading zero, as hex bytes do (a memory poke's form); eax takes a number "
                          "written 0x-hex or decimal");
  EXPECT_EQ(reg("eax=0"), (cases::RegisterPoke{cases::Reg::kEax, 0}));
  refused("eax", "is not ADDR=VALUE (hex bytes, or typed: u32:7, f32:0.5, fx:-200.0) or REG=VALUE (eax, ebx, ecx, "
                 "edx, esi, edi, ebp");

  // Where only memory is poked, a register poke is refused, never taken for an address.
  auto memory_only = parse_poke("eax=0x10", l);
  ASSERT_FALSE(memory_only.ok());
  EXPECT_NE(memory_only.error().message.find("poke 'eax=0x10' sets the entry register eax, and only memory is poked here"),
            std::string::npos)
      << memory_only.error().message;
  EXPECT_TRUE(parse_poke("car[1].engine_speed=00001000", l).ok());
}

TEST(Labels, TypedArgumentsAreTheirWords) {
  auto p = parse_profile(kGood, "t.toml");
  ASSERT_TRUE(p.ok());
  Labeler l(*p);
  auto word = [&](std::string_view text, ArgType type) -> std::uint32_t {
    auto a = parse_call_arg(text, type, l);
    EXPECT_TRUE(a.ok()) << text << ": " << (a.ok() ? "" : a.error().message);
    return a.ok() ? a->word : 0;
  };
  EXPECT_EQ(word("fx:-200.0", ArgType::kI32), 0xff380000u);
  EXPECT_EQ(word("fx:0.75", ArgType::kI32), 0xc000u);
  EXPECT_EQ(word("i16:-3", ArgType::kI32), 0xfffffffdu);  // sign-extended, as C passes a short
  EXPECT_EQ(word("u16:0xfffd", ArgType::kU32), 0x0000fffdu);
  EXPECT_EQ(word("f32:0.5", ArgType::kU32), 0x3f000000u);
  EXPECT_EQ(word("0.5", ArgType::kF32), 0x3f000000u);  // a plain number for an f32 argument
  EXPECT_EQ(word("car[1].engine_speed", ArgType::kPtr), 0x630838u + 0x558 + 0x440);
  auto d = parse_call_arg("f64:-1.25", ArgType::kF64, l);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kind, Arg::Kind::kF64);
  EXPECT_EQ(d->f64, -1.25);
  EXPECT_FALSE(parse_call_arg("fx:1.0", ArgType::kF64, l).ok());  // 4 bytes for an 8-byte argument
  EXPECT_FALSE(parse_call_arg("f64:1e400", ArgType::kF64, l).ok());
  EXPECT_FALSE(parse_call_arg("fx:70000", ArgType::kI32, l).ok());
}

}  // namespace
}  // namespace lockstep::harness
