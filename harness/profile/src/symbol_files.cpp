// A disassembler's exports of its names read as a SymbolTable: Ghidra's CSV and XML, IDA's .map
// (profile_symbols.hpp). Text formats with no checksum: each line is checked and an error names it.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "lockstep/base/io.hpp"
#include "lockstep/profile/profile_symbols.hpp"

namespace lockstep::harness {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Hex digits, optionally after "0x" or an address space prefix Ghidra writes ("ram:0040100").
std::optional<std::uint64_t> symbol_hex(std::string_view s) {
  s = trim(s);
  if (auto colon = s.rfind(':'); colon != std::string_view::npos) s.remove_prefix(colon + 1);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// One CSV record's fields (RFC 4180 quoting: "a ""b""" is a "b").
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') { out.back() += '"'; ++i; }
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

Result<GuestAddr> guest_address(std::uint64_t v, std::string_view what, std::size_t line) {
  if (v > 0xffffffffu)
    return Error::make(Errc::kMalformed, "{}:{}: address 0x{:x} is past 4 GiB (lockstep reads 32-bit originals)",
                       what, line, v);
  return static_cast<GuestAddr>(v);
}

// The value of attribute `name` in one XML start tag's text (entities &amp; &lt; &gt; &quot; &apos; decoded).
std::optional<std::string> xml_attribute(std::string_view tag, std::string_view name) {
  std::size_t at = 0;
  while ((at = tag.find(name, at)) != std::string_view::npos) {
    const bool starts = at > 0 && std::isspace(static_cast<unsigned char>(tag[at - 1]));
    std::size_t p = at + name.size();
    while (p < tag.size() && tag[p] == ' ') ++p;
    if (starts && p < tag.size() && tag[p] == '=') {
      ++p;
      while (p < tag.size() && tag[p] == ' ') ++p;
      if (p >= tag.size() || (tag[p] != '"' && tag[p] != '\'')) return std::nullopt;
      const char q = tag[p];
      const auto end = tag.find(q, p + 1);
      if (end == std::string_view::npos) return std::nullopt;
      std::string raw(tag.substr(p + 1, end - p - 1)), out;
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '&') { out += raw[i]; continue; }
        static const std::pair<std::string_view, char> kEntities[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool done = false;
        for (auto [e, c] : kEntities)
          if (std::string_view(raw).substr(i, e.size()) == e) { out += c; i += e.size() - 1; done = true; break; }
        if (!done) out += '&';
      }
      return out;
    }
    at = p;
  }
  return std::nullopt;
}

std::string qualified(const std::optional<std::string>& ns, std::string name) {
  if (!ns || ns->empty() || *ns == "Global" || *ns == "<global>") return name;
  return *ns + "::" + name;
}

}  // namespace

Result<SymbolFileFormat> parse_symbol_file_format(std::string_view name) {
  if (name == "auto") return SymbolFileFormat::kAuto;
  if (name == "executable" || name == "elf" || name == "pe") return SymbolFileFormat::kExecutable;
  if (name == "ghidra-csv") return SymbolFileFormat::kGhidraCsv;
  if (name == "ghidra-xml") return SymbolFileFormat::kGhidraXml;
  if (name == "ida-map") return SymbolFileFormat::kIdaMap;
  return Error::make(Errc::kUsage, "symbol format '{}': one of auto, executable, ghidra-csv, ghidra-xml, ida-map",
                     name);
}

Result<SymbolTable> parse_ghidra_csv(std::string_view text, std::string_view what) {
  SymbolTable t;
  t.what = std::string(what);
  t.sources = {SymbolSource::kGhidraCsv};
  const auto lines = lines_of(text);
  std::size_t header_line = 0;
  while (header_line < lines.size() && trim(lines[header_line]).empty()) ++header_line;
  if (header_line == lines.size()) return Error::make(Errc::kTruncated, "{}: empty (no header row)", what);
  const auto header = csv_fields(lines[header_line]);
  int name_col = -1, loc_col = -1, size_col = -1, ns_col = -1, type_col = -1;
  for (int i = 0; i < static_cast<int>(header.size()); ++i) {
    const std::string h = lower(trim(header[static_cast<std::size_t>(i)]));
    if (h == "name" || h == "label") name_col = i;
    else if (h == "location" || h == "address" || h == "entry point") loc_col = i;
    else if (h == "function size" || h == "size") size_col = i;
    else if (h == "namespace") ns_col = i;
    else if (h == "type" || h == "symbol type") type_col = i;
  }
  if (name_col < 0 || loc_col < 0)
    return Error::make(Errc::kMalformed,
                       "{}:{}: the header names no \"Name\" and \"Location\" columns (export Ghidra's Functions or "
                       "Symbol Table window with them shown)",
                       what, header_line + 1);
  bool any_size = false;
  for (std::size_t i = header_line + 1; i < lines.size(); ++i) {
    if (trim(lines[i]).empty()) continue;
    const auto f = csv_fields(lines[i]);
    auto col = [&](int c) -> std::string_view {
      if (c < 0 || static_cast<std::size_t>(c) >= f.size()) return {};
      return f[static_cast<std::size_t>(c)];
    };
    auto addr = symbol_hex(col(loc_col));
    if (!addr)
      return Error::make(Errc::kMalformed, "{}:{}: location '{}' is not a hex address", what, i + 1, col(loc_col));
    LOCKSTEP_TRY(auto a, guest_address(*addr, what, i + 1));
    Symbol s;
    s.address = a;
    std::optional<std::string> ns;
    if (ns_col >= 0) ns = std::string(trim(col(ns_col)));
    s.name = qualified(ns, std::string(trim(col(name_col))));
    if (s.name.empty()) return Error::make(Errc::kMalformed, "{}:{}: a row with no name", what, i + 1);
    if (size_col >= 0 && !trim(col(size_col)).empty()) {
      std::uint32_t v = 0;
      const auto sz = trim(col(size_col));
      auto [p, ec] = std::from_chars(sz.data(), sz.data() + sz.size(), v);
      if (ec != std::errc() || p != sz.data() + sz.size())
        return Error::make(Errc::kMalformed, "{}:{}: size '{}' is not a number", what, i + 1, sz);
      s.size = v;
      any_size = true;
    }
    const std::string type = lower(trim(col(type_col)));
    s.kind = (type == "data" || type == "label") ? SymbolKind::kData : SymbolKind::kFunction;
    t.symbols.push_back(std::move(s));
  }
  if (t.symbols.empty()) return Error::make(Errc::kNotFound, "{}: a header and no rows", what);
  t.size_known = any_size;
  sort_symbols(t.symbols);
  return t;
}

Result<SymbolTable> parse_ghidra_xml(std::string_view text, std::string_view what) {
  SymbolTable t;
  t.what = std::string(what);
  t.sources = {SymbolSource::kGhidraXml};
  if (text.find("<PROGRAM") == std::string_view::npos)
    return Error::make(Errc::kBadMagic, "{}: no <PROGRAM> element (not Ghidra's XML export)", what);
  std::vector<Symbol> labels;
  std::size_t at = 0;
  Symbol* open_function = nullptr;
  while ((at = text.find('<', at)) != std::string_view::npos) {
    const auto end = text.find('>', at);
    if (end == std::string_view::npos) return Error::make(Errc::kTruncated, "{}: a tag left open at the end", what);
    const std::string_view tag = text.substr(at, end - at + 1);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    at = end + 1;
    auto hex_attr = [&](std::string_view n) -> Result<GuestAddr> {
      auto v = xml_attribute(tag, n);
      auto h = v ? symbol_hex(*v) : std::nullopt;
      if (!h) return Error::make(Errc::kMalformed, "{}:{}: {} without a hex {}", what, line, tag.substr(0, 16), n);
      return guest_address(*h, what, line);
    };
    if (tag.starts_with("<FUNCTION ") || tag.starts_with("<FUNCTION>")) {
      LOCKSTEP_TRY(auto entry, hex_attr("ENTRY_POINT"));
      auto name = xml_attribute(tag, "NAME");
      if (!name || name->empty())
        return Error::make(Errc::kMalformed, "{}:{}: a FUNCTION without a NAME", what, line);
      t.symbols.push_back({entry, 0, qualified(xml_attribute(tag, "NAMESPACE"), *name), SymbolKind::kFunction, true});
      open_function = tag.ends_with("/>") ? nullptr : &t.symbols.back();
    } else if (tag.starts_with("</FUNCTION")) {
      open_function = nullptr;
    } else if (tag.starts_with("<ADDRESS_RANGE") && open_function) {
      LOCKSTEP_TRY(auto start, hex_attr("START"));
      LOCKSTEP_TRY(auto last, hex_attr("END"));
      if (last < start) return Error::make(Errc::kMalformed, "{}:{}: an ADDRESS_RANGE ending before it starts", what, line);
      open_function->size += last - start + 1;
    } else if (tag.starts_with("<SYMBOL ")) {
      LOCKSTEP_TRY(auto a, hex_attr("ADDRESS"));
      auto name = xml_attribute(tag, "NAME");
      if (name && !name->empty())
        labels.push_back({a, 0, qualified(xml_attribute(tag, "NAMESPACE"), *name), SymbolKind::kData, true});
    }
  }
  if (t.symbols.empty() && labels.empty()) return Error::make(Errc::kNotFound, "{}: no FUNCTION or SYMBOL", what);
  sort_symbols(t.symbols);
  for (auto& l : labels)  // a symbol at a function's entry is that function's name, not a label
    if (!t.function_at(l.address)) t.symbols.push_back(std::move(l));
  t.size_known = true;
  sort_symbols(t.symbols);
  return t;
}

Result<SymbolTable> parse_ida_map(std::string_view text, std::string_view what,
                                  const std::map<std::uint32_t, GuestAddr>& segment_bases) {
  SymbolTable t;
  t.what = std::string(what);
  t.sources = {SymbolSource::kIdaMap};
  std::map<std::uint32_t, bool> code_segment;  // segment number -> class CODE
  bool publics = false;
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = trim(lines[i]);
    if (l.empty()) continue;
    if (l.find("Publics by Value") != std::string_view::npos) { publics = true; continue; }
    if (l.starts_with("Program entry point") || l.starts_with("Start ")) continue;
    // "SSSS:OOOOOOOO ..." — a segment table row (length, name, class) or a public (a name).
    if (l.size() < 14 || l[4] != ':') continue;
    auto seg = symbol_hex(l.substr(0, 4));
    auto off = symbol_hex(l.substr(5, 8));
    if (!seg || !off) return Error::make(Errc::kMalformed, "{}:{}: '{}' is not SSSS:OOOOOOOO", what, i + 1, l.substr(0, 13));
    const std::string_view rest = trim(l.substr(13));
    const auto segment = static_cast<std::uint32_t>(*seg);
    if (!publics) {  // 0001:00000000 000012345H .text  CODE
      const auto cls = rest.substr(rest.find_last_of(" \t") == std::string_view::npos ? 0 : rest.find_last_of(" \t") + 1);
      code_segment[segment] = cls == "CODE";
      continue;
    }
    if (rest.empty()) return Error::make(Errc::kMalformed, "{}:{}: a public with no name", what, i + 1);
    auto base = segment_bases.find(segment);
    if (base == segment_bases.end())
      return Error::make(Errc::kUsage,
                         "{}:{}: segment {:04x} has no base address (a .map does not record it): give --segment "
                         "{}=ADDRESS",
                         what, i + 1, segment, segment);
    LOCKSTEP_TRY(auto a, guest_address(std::uint64_t{base->second} + *off, what, i + 1));
    const auto cls = code_segment.find(segment);
    const bool code = cls == code_segment.end() || cls->second;
    t.symbols.push_back({a, 0, std::string(rest), code ? SymbolKind::kFunction : SymbolKind::kData, true});
  }
  if (!publics) return Error::make(Errc::kMalformed, "{}: no \"Publics by Value\" section (not an IDA .map)", what);
  if (t.symbols.empty()) return Error::make(Errc::kNotFound, "{}: no public names", what);
  sort_symbols(t.symbols);
  return t;
}

Result<SymbolTable> load_symbol_file(const std::filesystem::path& path, const SymbolFileOptions& opt) {
  LOCKSTEP_TRY(auto bytes, read_file(path, opt.limits.max_file_bytes));
  SymbolFileFormat f = opt.format;
  const std::string what = path.string();
  if (f == SymbolFileFormat::kAuto) {
    const std::string ext = lower(path.extension().string());
    const std::string_view head(reinterpret_cast<const char*>(bytes.data()), std::min<std::size_t>(bytes.size(), 4096));
    if (has_symbol_table_magic(bytes)) f = SymbolFileFormat::kExecutable;
    else if (ext == ".map") f = SymbolFileFormat::kIdaMap;
    else if (ext == ".xml" || head.find("<PROGRAM") != std::string_view::npos) f = SymbolFileFormat::kGhidraXml;
    else if (ext == ".csv") f = SymbolFileFormat::kGhidraCsv;
    else
      return Error::make(Errc::kUsage, "{}: cannot tell its format: give --format (executable, ghidra-csv, "
                         "ghidra-xml, ida-map)", what);
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  switch (f) {
    case SymbolFileFormat::kExecutable: return read_symbol_table(bytes, what);
    case SymbolFileFormat::kGhidraCsv: return parse_ghidra_csv(text, what);
    case SymbolFileFormat::kGhidraXml: return parse_ghidra_xml(text, what);
    case SymbolFileFormat::kIdaMap: return parse_ida_map(text, what, opt.segment_bases);
    case SymbolFileFormat::kAuto: break;
  }
  return Error::make(Errc::kUsage, "{}: no format", what);
}

}  // namespace lockstep::harness
