// The static HTML progress page (progress.hpp): one file, its style inline, an SVG chart, no scripts
// and nothing fetched, so it opens from disk and from a CI artifact alike.
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "lockstep/base/io.hpp"
#include "lockstep/progress/progress.hpp"
#include "lockstep/base/markup.hpp"
#include "progress_common.hpp"

namespace lockstep::harness {
namespace {

using detail::markup_escape;

using progress_detail::share_percent;
using progress_detail::status_text;

constexpr std::string_view kProgressStyle = R"CSS(
body { font: 14px/1.4 sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.5em; }
table { border-collapse: collapse; } td, th { padding: 2px 8px; text-align: left; border-bottom: 1px solid #ddd; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.bar { width: 240px; height: 12px; background: #e6e6e6; display: inline-block; vertical-align: middle; }
.bar .fill { height: 12px; background: #2e8b57; }
.bar.code .fill { background: #3b6fb6; }
tr.matched td.status { color: #2e8b57; } tr.mismatch td.status { color: #b22222; font-weight: bold; }
tr.unported td.status, tr.nocases td.status { color: #888; }
code { font-size: 0.95em; }
)CSS";

std::string progress_bar(double pct, const char* kind, const std::string& title) {
  return fmt::format("<span class=\"bar {}\" title=\"{}\"><span class=\"fill\" style=\"display:block;width:{:.1f}%\">"
                     "</span></span>",
                     kind, markup_escape(title), pct);
}

// Two bars per module: matched functions (green) and matched code bytes (blue), in per cent.
std::string progress_chart(const ProgressReport& r) {
  constexpr int kLabel = 180, kWidth = 400, kRow = 34;
  const int height = 30 + kRow * static_cast<int>(r.modules.size());
  std::string s = fmt::format("<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                              "role=\"img\" aria-label=\"matched functions and code bytes per module\">\n",
                              kLabel + kWidth + 70, height);
  s += fmt::format("<rect x=\"{}\" y=\"4\" width=\"10\" height=\"10\" fill=\"#2e8b57\"/><text x=\"{}\" y=\"13\">"
                   "functions matched</text><rect x=\"{}\" y=\"4\" width=\"10\" height=\"10\" fill=\"#3b6fb6\"/>"
                   "<text x=\"{}\" y=\"13\">code bytes matched</text>\n",
                   kLabel, kLabel + 14, kLabel + 160, kLabel + 174);
  int y = 24;
  for (const auto& m : r.modules) {
    const double fp = share_percent(m.matched_functions, m.functions), cp = share_percent(m.matched_code_bytes, m.code_bytes);
    s += fmt::format("<g class=\"module\" data-module=\"{0}\"><text x=\"0\" y=\"{1}\">{0}</text>"
                     "<rect x=\"{2}\" y=\"{3}\" width=\"{4}\" height=\"12\" fill=\"#e6e6e6\"/>"
                     "<rect class=\"functions\" x=\"{2}\" y=\"{3}\" width=\"{5:.1f}\" height=\"12\" fill=\"#2e8b57\"/>"
                     "<rect x=\"{2}\" y=\"{6}\" width=\"{4}\" height=\"12\" fill=\"#e6e6e6\"/>"
                     "<rect class=\"code\" x=\"{2}\" y=\"{6}\" width=\"{7:.1f}\" height=\"12\" fill=\"#3b6fb6\"/>"
                     "<text x=\"{8}\" y=\"{9}\">{10:.0f}%</text><text x=\"{8}\" y=\"{11}\">{12:.0f}%</text></g>\n",
                     markup_escape(m.name), y + 14, kLabel, y + 3, kWidth, kWidth * fp / 100, y + 16, kWidth * cp / 100,
                     kLabel + kWidth + 6, y + 13, fp, y + 26, cp);
    y += kRow;
  }
  return s + "</svg>\n";
}

std::string function_row_class(const FunctionProgress& f) {
  if (f.all_matched()) return "matched";
  if (f.cases == 0) return f.bound ? "nocases" : "unported";
  return "mismatch";
}

std::string function_rows(const ProgressReport& r, const std::filesystem::path& dir) {
  std::string s;
  for (const auto& f : r.functions) {
    std::string name = markup_escape(f.name);
    if (!f.coverage_page.empty()) {
      std::error_code ec;
      auto rel = std::filesystem::relative(f.coverage_page, std::filesystem::absolute(dir, ec), ec);
      const std::string href = ec || rel.empty() ? "file://" + f.coverage_page : rel.generic_string();
      name = fmt::format("<a class=\"coverage\" href=\"{}\">{}</a>", markup_escape(href), name);
    }
    const std::string st = status_text(f);
    const std::string edges = f.edges_total ? fmt::format("{}/{}", *f.edges_covered, *f.edges_total) : "";
    const std::string first = f.first_mismatch ? fmt::format("{} case {}", markup_escape(f.first_mismatch->first),
                                                             f.first_mismatch->second)
                                               : "";
    s += fmt::format("<tr class=\"function {}\" data-address=\"{:08x}\"><td><code>{:08x}</code></td><td>{}</td>"
                     "<td>{}</td><td class=\"status\">{}</td><td class=\"n\">{}/{}</td><td class=\"n\">{}</td>"
                     "<td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
                     function_row_class(f), f.address, f.address, name, markup_escape(f.module), st, f.matched, f.cases,
                     f.code_bytes, code_size_source_name(f.code_source), edges, first);
  }
  return s;
}

}  // namespace

Status write_progress_html(const ProgressReport& r, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error::make(Errc::kIo, "{}: cannot create the folder: {}", dir.string(), ec.message());
  const auto& t = r.total;
  std::string h = fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                              "<title>lockstep progress: {0}</title><style>{1}</style></head><body>\n"
                              "<h1>Progress of the port against {0}</h1>\n",
                              markup_escape(r.profile), kProgressStyle);
  h += fmt::format("<p class=\"totals\"><span class=\"matched-functions\">{}</span> of {} functions matched ({:.1f}%), "
                   "{} of {} code bytes ({:.1f}%); {} of {} cases matched; {} bound, {} with cases.</p>\n",
                   t.matched_functions, t.functions, share_percent(t.matched_functions, t.functions), t.matched_code_bytes,
                   t.code_bytes, share_percent(t.matched_code_bytes, t.code_bytes), t.matched_cases, t.cases, t.bound,
                   t.with_cases);
  h += "<p>Corpora: ";
  for (std::size_t i = 0; i < r.corpora.size(); ++i) h += (i ? ", " : "") + fmt::format("<code>{}</code>", markup_escape(r.corpora[i]));
  h += ". A function is matched when every one of its cases replayed equal.</p>\n<h2>Modules</h2>\n";
  h += "<table class=\"modules\"><tr><th>module</th><th>functions matched</th><th></th><th>code bytes matched</th><th>"
       "</th><th>cases</th></tr>\n";
  for (const auto& m : r.modules)
    h += fmt::format("<tr class=\"module\"><td>{0}</td><td>{1}</td><td class=\"n\">{2}/{3}</td><td>{4}</td>"
                     "<td class=\"n\">{5}/{6}</td><td class=\"n\">{7}/{8}</td></tr>\n",
                     markup_escape(m.name),
                     progress_bar(share_percent(m.matched_functions, m.functions), "functions", fmt::format("{} functions", m.name)),
                     m.matched_functions, m.functions,
                     progress_bar(share_percent(m.matched_code_bytes, m.code_bytes), "code", fmt::format("{} code bytes", m.name)),
                     m.matched_code_bytes, m.code_bytes, m.matched_cases, m.cases);
  h += "</table>\n<h2>Chart</h2>\n" + progress_chart(r);
  h += "<h2>Functions</h2>\n<table class=\"functions\"><tr><th>address</th><th>name</th><th>module</th><th>status</th>"
       "<th>cases matched</th><th>code bytes</th><th>measured by</th><th>branch edges</th><th>first mismatch</th></tr>\n";
  h += function_rows(r, dir);
  h += "</table>\n</body></html>\n";
  return write_file_atomic(dir / "index.html", h);
}

}  // namespace lockstep::harness
