// A profile drafted from symbols, and a profile's names written as Ghidra and IDA scripts
// (profile_symbols.hpp). The scripts carry their data as Python tables at the top and a few lines
// of the disassembler's own API below, so a reader sees what they will name before running them.
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "lockstep/profile/profile_symbols.hpp"

namespace lockstep::harness {
namespace {

// A string as a TOML basic string or a Python literal: both take these escapes.
std::string script_quoted(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') { out += '\\'; out += c; }
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) out += fmt::format("\\x{:02x}", u);  // never in a name; kept readable
    else out += c;
  }
  return out + "\"";
}

// TOML has no \x escape: control characters as \u.
std::string toml_quoted(std::string_view s) {
  std::string q = script_quoted(s);
  std::string out;
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (q[i] == '\\' && i + 1 < q.size() && q[i + 1] == 'x') { out += "\\u00"; ++i; }
    else if (q[i] == '\\' && i + 1 < q.size()) { out += q[i]; out += q[++i]; }
    else out += q[i];
  }
  return out;
}

}  // namespace

std::string draft_profile(const SymbolTable& symbols, const ProfileDraftOptions& opt) {
  const std::string convention = opt.convention.value_or(std::string(kUnknownPlaceholder));
  const std::string returns = opt.returns.value_or(std::string(kUnknownPlaceholder));
  std::string sources;
  for (auto s : symbols.sources) sources += (sources.empty() ? "" : ", ") + std::string(symbol_source_name(s));
  std::string out = fmt::format(
      "# A first profile of {}, drafted by `lockstep profile from-symbols` from its {} (harness/docs/profile.md).\n"
      "# A symbol table names functions and data; it does not know how a function is called. Fill in:\n",
      symbols.what, sources);
  if (!opt.convention)
    out += fmt::format("#   - every convention = \"{}\": watcom, cdecl, stdcall, fastcall, thiscall or custom\n"
                       "#     (the profile does not load until each is replaced);\n", kUnknownPlaceholder);
  else
    out += fmt::format("#   - convention = \"{}\" for every function came from --convention, not from the symbols:\n"
                       "#     check each one;\n", convention);
  if (!opt.returns)
    out += fmt::format("#   - every returns = \"{}\": none, eax, edx:eax or st0;\n", kUnknownPlaceholder);
  else
    out += fmt::format("#   - returns = \"{}\" for every function came from --returns: check each one;\n", returns);
  out += "#   - args (\"name:kind\"), empty here; structs, instances, stubs and drivers.\n";
  out += fmt::format("\n[profile]\nname = {}\ndescription = {}\n", toml_quoted(opt.name),
                     toml_quoted(opt.description.empty() ? "drafted from the symbols of " + symbols.what
                                                         : opt.description));
  // One function per address (the table's first global name; the others noted); names unique.
  std::set<std::string> used;
  std::unordered_map<std::string, int> name_count;
  for (const auto& s : symbols.symbols) ++name_count[s.name];
  GuestAddr last = 0;
  bool have_last = false;
  for (const auto& s : symbols.symbols) {
    if (s.kind != SymbolKind::kFunction) continue;
    const Symbol* chosen = symbols.function_at(s.address);
    if (have_last && last == s.address) continue;
    last = s.address;
    have_last = true;
    std::string name = chosen->name;
    if (name_count[name] > 1 || used.count(name)) name = fmt::format("{}@{:08x}", name, s.address);
    used.insert(name);
    out += fmt::format("\n[[function]]\naddress = 0x{:08x}\nname = {}\noriginal = {}\nconvention = {}\nargs = []\n"
                       "returns = {}\n",
                       s.address, toml_quoted(name), toml_quoted(chosen->name), toml_quoted(convention),
                       toml_quoted(returns));
    if (chosen->size) out += fmt::format("doc = \"{} bytes in the symbol table\"\n", chosen->size);
  }
  std::set<std::string> labels;
  for (const auto& s : symbols.symbols) {
    if (s.kind != SymbolKind::kData) continue;
    std::string name = s.name;
    if (labels.count(name)) name = fmt::format("{}@{:08x}", name, s.address);
    if (!labels.insert(name).second) continue;
    out += fmt::format("\n[[label]]\nname = {}\naddress = 0x{:08x}\nsize = {}{}\n", toml_quoted(name), s.address,
                       s.size ? s.size : 1, s.size ? "" : "   # the table gives no size");
  }
  return out;
}

namespace {

// The profile's data as Python tables, shared by both scripts.
std::string python_tables(const Profile& p) {
  std::string out = "FUNCTIONS = [  # (address, name, comment)\n";
  for (const auto& f : p.functions)
    out += fmt::format("    (0x{:08x}, {}, {}),\n", f.address, script_quoted(f.name), script_quoted(f.doc));
  out += "]\nSTRUCTS = [  # (name, size, [(offset, size, field name, nested struct or None, count)])\n";
  for (const auto& s : p.structs) {
    out += fmt::format("    ({}, 0x{:x}, [\n", script_quoted(s.name), s.size);
    for (const auto& fd : s.fields)
      out += fmt::format("        (0x{:x}, {}, {}, {}, {}),\n", fd.offset, fd.size, script_quoted(fd.name),
                         fd.struct_name.empty() ? "None" : script_quoted(fd.struct_name), fd.count);
    out += "    ]),\n";
  }
  out += "]\nINSTANCES = [  # (label, struct, base, count)\n";
  for (const auto& i : p.instances)
    out += fmt::format("    ({}, {}, 0x{:08x}, {}),\n", script_quoted(i.name), script_quoted(i.struct_name), i.base, i.count);
  out += "]\nLABELS = [  # (address, name, size)\n";
  for (const auto& l : p.labels) out += fmt::format("    (0x{:08x}, {}, {}),\n", l.address, script_quoted(l.name), l.size);
  return out + "]\n";
}

}  // namespace

std::string ghidra_script(const Profile& p) {
  std::string out = fmt::format(
      "# Names the functions, structs and labels of the lockstep profile {} in the open program.\n"
      "# Written by `lockstep profile export --ghidra` from {}; run it from Ghidra's Script Manager\n"
      "# (Python: Jython in Ghidra 11, PyGhidra in 12). Existing functions are renamed, missing ones made.\n"
      "# @category lockstep\n\n",
      script_quoted(p.name), p.source);
  out += python_tables(p);
  out += R"PY(
from ghidra.program.model.symbol import SourceType
from ghidra.program.model.data import (ArrayDataType, ByteDataType, CategoryPath,
                                       DataTypeConflictHandler, StructureDataType)
from ghidra.app.util import NamespaceUtils

USER = SourceType.USER_DEFINED
CATEGORY = CategoryPath("/lockstep")


def namespace_and_leaf(name):
    """'math::dot16' -> (the namespace math, made where missing; 'dot16')."""
    parent, _, leaf = name.rpartition("::")
    if not parent:
        return currentProgram.getGlobalNamespace(), leaf
    return NamespaceUtils.createNamespaceHierarchy(parent, None, currentProgram, USER), leaf


def name_function(address, name, comment):
    entry = toAddr(address)
    namespace, leaf = namespace_and_leaf(name)
    function = getFunctionAt(entry)
    if function is None:
        disassemble(entry)
        function = createFunction(entry, leaf)
    if function is None:
        printerr("lockstep: no function could be made at %08x (%s)" % (address, name))
        return False
    function.setName(leaf, USER)
    function.setParentNamespace(namespace)
    if comment:
        function.setComment(comment)
    return True


def make_structs():
    manager = currentProgram.getDataTypeManager()
    made = {}
    for name, size, fields in STRUCTS:  # made first, filled after: fields may hold later structs
        made[name] = StructureDataType(CATEGORY, name, size)
    for name, size, fields in STRUCTS:
        struct = made[name]
        for offset, length, field, nested, count in fields:
            if nested is not None:  # count records of the nested struct
                element = made[nested]
                if count > 1:
                    element = ArrayDataType(element, count, length // count)
            else:  # bytes (an array's elements are bytes too: the profile knows no types)
                element = ByteDataType.dataType if length == 1 else ArrayDataType(ByteDataType.dataType, length, 1)
            struct.replaceAtOffset(offset, element, length, field, None)
    for name, size, fields in STRUCTS:
        made[name] = manager.addDataType(made[name], DataTypeConflictHandler.REPLACE_HANDLER)
    return made


def name_data(address, name):
    createLabel(toAddr(address), name, True, USER)


def run():
    named = sum(1 for address, name, comment in FUNCTIONS if name_function(address, name, comment))
    structs = make_structs()
    for label, struct, base, count in INSTANCES:
        name_data(base, label)
        data_type = structs[struct] if count == 1 else ArrayDataType(structs[struct], count, structs[struct].getLength())
        try:
            clearListing(toAddr(base), toAddr(base + data_type.getLength() - 1))
            createData(toAddr(base), data_type)
        except Exception as e:  # code or other data there: the label stays
            printerr("lockstep: %s at %08x keeps its listing (%s)" % (label, base, e))
    for address, name, size in LABELS:
        name_data(address, name)
    print("lockstep: %d of %d functions named, %d structs, %d instances, %d labels" % (
        named, len(FUNCTIONS), len(STRUCTS), len(INSTANCES), len(LABELS)))


run()
)PY";
  return out;
}

std::string ida_script(const Profile& p) {
  std::string out = fmt::format(
      "# Names the functions, structs and labels of the lockstep profile {} in the open database.\n"
      "# Written by `lockstep profile export --ida` from {}; run it with File > Script file (IDAPython).\n"
      "# Missing functions are made; names with '::' keep it where IDA's NameChars allow, else IDA\n"
      "# replaces the characters it refuses (SN_NOCHECK).\n\n",
      script_quoted(p.name), p.source);
  out += python_tables(p);
  out += R"PY(
import ida_funcs
import ida_name
import idc

FLAGS = ida_name.SN_NOCHECK | ida_name.SN_NOWARN | ida_name.SN_FORCE


def name_function(address, name, comment):
    function = ida_funcs.get_func(address)
    if function is None or function.start_ea != address:
        if not ida_funcs.add_func(address):
            print("lockstep: no function could be made at %08x (%s)" % (address, name))
            return False
    ida_name.set_name(address, name, FLAGS)
    if comment:
        idc.set_func_cmt(address, comment, 1)
    return True


def make_structs():
    ids = {}
    for name, size, fields in STRUCTS:  # made first, filled after: fields may hold later structs
        sid = idc.get_struc_id(name)
        if sid == idc.BADADDR:
            sid = idc.add_struc(-1, name, 0)
        ids[name] = sid
    for name, size, fields in STRUCTS:
        sid = ids[name]
        end = 0
        for offset, length, field, nested, count in fields:
            if nested is not None:
                idc.add_struc_member(sid, field, offset, idc.FF_DATA | idc.FF_STRUCT, ids[nested], length)
            else:
                idc.add_struc_member(sid, field, offset, idc.FF_DATA | idc.FF_BYTE, -1, length)
            end = max(end, offset + length)
        if end < size:  # the struct's own size past its last field
            idc.add_struc_member(sid, "end_pad", end, idc.FF_DATA | idc.FF_BYTE, -1, size - end)
    return ids


def run():
    named = sum(1 for address, name, comment in FUNCTIONS if name_function(address, name, comment))
    make_structs()
    for label, struct, base, count in INSTANCES:
        ida_name.set_name(base, label, FLAGS)
    for address, name, size in LABELS:
        ida_name.set_name(address, name, FLAGS)
    print("lockstep: %d of %d functions named, %d structs, %d instances, %d labels" % (
        named, len(FUNCTIONS), len(STRUCTS), len(INSTANCES), len(LABELS)))


run()
)PY";
  return out;
}

}  // namespace lockstep::harness
