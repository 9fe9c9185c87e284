#include "tests/support/RunScenario.hpp"

#include "simcore/app/Runner.hpp"
#include "simcore/app/Scenario.hpp"
#include "simcore/config/ConfigError.hpp"
#include "tests/support/Isolated.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::testing {

double Csv::sum(const std::string& col) const
{
  double s = 0;
  for (auto const& r : rows)
    s += std::stod(r.at(col));
  return s;
}

Csv parse_csv(const std::string& text)
{
  Csv c;
  std::istringstream in(text);
  std::string line;
  auto split = [](const std::string& l) { // RFC 4180: a quoted cell may hold commas and doubled quotes
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (std::size_t i = 0; i < l.size(); ++i) {
      const char ch = l[i];
      if (quoted && ch == '"' && i + 1 < l.size() && l[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        cells.push_back(std::move(cell));
        cell.clear();
      } else {
        cell += ch;
      }
    }
    if (!l.empty())
      cells.push_back(std::move(cell));
    return cells;
  };
  if (std::getline(in, line))
    c.columns = split(line);
  while (std::getline(in, line)) {
    auto cells = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < c.columns.size() && i < cells.size(); ++i)
      row[c.columns[i]] = cells[i];
    c.rows.push_back(std::move(row));
  }
  return c;
}

ScenarioRun run_scenario_isolated(const std::string& scenario, const std::vector<std::string>& sets,
                                  const std::string& trace, bool critical_path)
{
  auto res = run_isolated([&]() -> std::string {
    using nlohmann::json;
    json out;
    fs::path dir = fs::temp_directory_path() / ("nafsim-test-" + std::to_string(::getpid()));
    try {
      workloads::WorkloadRegistry reg;
      workloads::register_all_workloads(reg);
      app::ScenarioOptions opt;
      opt.sets    = sets;
      auto doc    = config::parse_json_text(scenario, "test-scenario.json");
      auto sc     = app::load_scenario_doc(doc, "test-scenario.json", ".", opt, reg);
      auto level  = trace == "packets"    ? results::TraceLevel::Packets
                    : trace == "blocks"   ? results::TraceLevel::Blocks
                    : trace == "messages" ? results::TraceLevel::Messages
                                          : results::TraceLevel::Off;
      auto rep    = app::run_scenario(sc, dir, {}, {"test"}, app::RunOptions{level, critical_path});
      out["ok"]      = true;
      out["summary"] = rep.summary;
      for (auto const& f : fs::directory_iterator(dir)) {
        std::ifstream in(f.path());
        std::stringstream ss;
        ss << in.rdbuf();
        if (f.path().extension() == ".csv")
          out["tables"][f.path().stem().string()] = ss.str();
        else if (f.path().filename() == "metadata.json")
          out["metadata"] = json::parse(ss.str());
        else if (f.path().filename() == "trace.json")
          out["trace"] = json::parse(ss.str());
      }
    } catch (const config::ConfigError& e) {
      out = {{"ok", false}, {"kind", "config"}, {"error", e.what()}};
    } catch (const DeadlockError& e) {
      out = {{"ok", false}, {"kind", "deadlock"}, {"error", e.what()}};
    } catch (const SimulationError& e) {
      out = {{"ok", false}, {"kind", "simulation"}, {"error", e.what()}};
    } catch (const std::exception& e) {
      out = {{"ok", false}, {"kind", "other"}, {"error", e.what()}};
    }
    fs::remove_all(dir);
    return out.dump();
  });
  ScenarioRun r;
  if (res.exit_code != 0) {
    r.error      = "child failed with exit code " + std::to_string(res.exit_code) + ": " + res.output;
    r.error_kind = "crash";
    return r;
  }
  auto j = nlohmann::json::parse(res.output);
  r.ok   = j.at("ok").get<bool>();
  if (!r.ok) {
    r.error      = j.at("error").get<std::string>();
    r.error_kind = j.at("kind").get<std::string>();
    return r;
  }
  r.summary = j.at("summary").get<std::vector<std::string>>();
  for (auto it = j["tables"].begin(); it != j["tables"].end(); ++it)
    r.tables[it.key()] = parse_csv(it.value().get<std::string>());
  r.metadata = j["metadata"];
  if (j.contains("trace"))
    r.trace = j["trace"];
  return r;
}

} // namespace nafsim::testing
