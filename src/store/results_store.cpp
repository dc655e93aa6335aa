#include "store/results_store.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "store/postgres_connection.h"
#include "store/sqlite_connection.h"
#include "store/store_schema.h"

namespace dlcbench {

std::string text_of(const SqlValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return "";
}

std::int64_t integer_of(const SqlValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return static_cast<std::int64_t>(*d);
  if (const auto* s = std::get_if<std::string>(&v)) {
    try {
      return std::stoll(*s);
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

double real_of(const SqlValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&v)) {
    try {
      return std::stod(*s);
    } catch (const std::exception&) {
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

namespace {

std::string now_utc() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

// PostgreSQL numbers its parameters: `?` becomes $1, $2, ... (the store's
// queries hold no `?` inside a literal).
std::string numbered_parameters(const std::string& sql, SqlDialect dialect) {
  if (dialect == SqlDialect::sqlite) return sql;
  std::string out;
  int n = 0;
  for (char c : sql) {
    if (c == '?') out += fmt::format("${}", ++n);
    else out += c;
  }
  return out;
}

SqlValue integer(std::int64_t v) { return v; }
SqlValue boolean(bool v) { return static_cast<std::int64_t>(v ? 1 : 0); }

class SqlStore final : public ResultsStore {
 public:
  explicit SqlStore(std::unique_ptr<SqlConnection> db) : db_(std::move(db)) { migrate(); }

  bool add(const RunToStore& r) override {
    const StoredRun& run = r.run;
    db_->begin_write();
    try {
      const bool existed = !q("SELECT key FROM runs WHERE run_id = ?", {run.run_id}).empty();
      q("DELETE FROM runs WHERE run_id = ?", {run.run_id});
      const auto inserted =
          q("INSERT INTO runs (run_id, machine, started_at, ended_at, status, folder, baseline, dlcbench_version, "
            "calibration, manifest, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING key",
            {run.run_id, run.machine, run.started_at, run.ended_at, run.status, run.folder, run.baseline,
             run.dlcbench_version, boolean(run.calibration), r.manifest.dump(), now_utc()});
      const std::int64_t key = integer_of(inserted.at(0).at(0));
      for (std::size_t i = 0; i < r.records.size(); ++i)
        q("INSERT INTO records (run, seq, record) VALUES (?, ?, ?)",
          {integer(key), integer(static_cast<std::int64_t>(i)), r.records[i]});
      for (const auto& c : run.comparisons) {
        nlohmann::json facts = c.facts;
        q("INSERT INTO comparisons (run, case_id, env, baseline, verdict, compared, mismatch_allowed, form, basis, "
          "time_ratio, time_low, time_high, rate, unit, per, margin, runs_compared, facts) VALUES (?, ?, ?, ?, ?, ?, "
          "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {integer(key), c.case_id, c.env, c.baseline, std::string(verdict_name(c.verdict)), boolean(c.compared),
           boolean(c.mismatch_allowed), std::string(headline_form_name(c.headline.form)),
           std::string(headline_basis_name(c.headline.basis)), c.headline.time_ratio, c.headline.time_low,
           c.headline.time_high, boolean(c.headline.terms.rate), c.headline.terms.unit, c.headline.terms.per,
           c.margin, integer(static_cast<std::int64_t>(c.runs_compared)), facts.dump()});
      }
      db_->commit();
      return !existed;
    } catch (...) {
      db_->rollback();
      throw;
    }
  }

  std::vector<StoredRun> runs(const RunQuery& query) override {
    const std::string where = query.machine.empty() ? "" : " WHERE machine = ?";
    std::vector<SqlValue> params;
    if (!query.machine.empty()) params.emplace_back(query.machine);
    std::vector<StoredRun> out;
    std::map<std::int64_t, std::size_t> at;
    for (const auto& row : q("SELECT key, run_id, machine, started_at, ended_at, status, folder, baseline, "
                             "dlcbench_version, calibration FROM runs" +
                                 where + " ORDER BY ended_at, key",
                             params)) {
      StoredRun s;
      s.key = integer_of(row[0]);
      s.run_id = text_of(row[1]);
      s.machine = text_of(row[2]);
      s.started_at = text_of(row[3]);
      s.ended_at = text_of(row[4]);
      s.status = text_of(row[5]);
      s.folder = text_of(row[6]);
      s.baseline = text_of(row[7]);
      s.dlcbench_version = text_of(row[8]);
      s.calibration = integer_of(row[9]) != 0;
      at[s.key] = out.size();
      out.push_back(std::move(s));
    }
    for (const auto& row : q("SELECT run, case_id, env, baseline, verdict, compared, mismatch_allowed, form, basis, "
                             "time_ratio, time_low, time_high, rate, unit, per, margin, runs_compared, facts FROM "
                             "comparisons ORDER BY run, case_id, env")) {
      const auto it = at.find(integer_of(row[0]));
      if (it == at.end()) continue;
      StoredComparison c;
      c.case_id = text_of(row[1]);
      c.env = text_of(row[2]);
      c.baseline = text_of(row[3]);
      c.verdict = verdict_from_name(text_of(row[4])).value_or(Verdict::too_few_runs);
      c.compared = integer_of(row[5]) != 0;
      c.mismatch_allowed = integer_of(row[6]) != 0;
      c.headline.form = headline_form_from_name(text_of(row[7])).value_or(Headline::Form::change);
      c.headline.basis = headline_basis_from_name(text_of(row[8])).value_or(Headline::Basis::none);
      c.headline.time_ratio = real_of(row[9]);
      c.headline.time_low = real_of(row[10]);
      c.headline.time_high = real_of(row[11]);
      c.headline.terms.rate = integer_of(row[12]) != 0;
      c.headline.terms.unit = text_of(row[13]);
      c.headline.terms.per = text_of(row[14]);
      c.headline.terms.time_added = c.headline.form == Headline::Form::time_added;
      c.margin = real_of(row[15]);
      c.runs_compared = static_cast<std::size_t>(integer_of(row[16]));
      try {
        c.facts = nlohmann::json::parse(text_of(row[17])).get<std::map<std::string, std::string>>();
      } catch (const std::exception&) {
        // Facts another version wrote in another shape: none known.
      }
      out[it->second].comparisons.push_back(std::move(c));
    }
    return out;
  }

  int schema_version() override { return version(); }
  std::string description() const override { return db_->description(); }

 private:
  std::vector<SqlRow> q(const std::string& sql, const std::vector<SqlValue>& params = {}) {
    return db_->query(numbered_parameters(sql, db_->dialect()), params);
  }

  int version() {
    const auto table = db_->dialect() == SqlDialect::sqlite
                           ? q("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'store_meta'")
                           : q("SELECT table_name FROM information_schema.tables WHERE table_name = 'store_meta' "
                               "AND table_schema = current_schema()");
    if (table.empty()) return 0;
    const auto v = q("SELECT value FROM store_meta WHERE key = 'schema_version'");
    return v.empty() ? 0 : static_cast<int>(integer_of(v[0][0]));
  }

  // Brings the store to this binary's schema, one step per transaction; a
  // store of a newer schema is refused unchanged.
  void migrate() {
    const auto steps = store_migrations(db_->dialect());
    if (const int found = version(); found > static_cast<int>(steps.size()))
      throw StoreError(newer_schema_message(db_->description(), found));
    for (;;) {
      db_->begin_write();
      try {
        // Read again under the write lock: another process may have
        // migrated it since.
        const int v = version();
        if (v > static_cast<int>(steps.size())) throw StoreError(newer_schema_message(db_->description(), v));
        if (v == static_cast<int>(steps.size())) {
          db_->commit();
          return;
        }
        for (const auto& sql : steps[static_cast<std::size_t>(v)]) q(sql);
        if (v == 0)
          q("INSERT INTO store_meta (key, value) VALUES ('schema_version', ?)", {std::to_string(v + 1)});
        else
          q("UPDATE store_meta SET value = ? WHERE key = 'schema_version'", {std::to_string(v + 1)});
        db_->commit();
      } catch (...) {
        db_->rollback();
        throw;
      }
    }
  }

  std::unique_ptr<SqlConnection> db_;
};

}  // namespace

std::unique_ptr<ResultsStore> open_store(const StoreLocation& location) {
  if (location.kind == StoreLocation::Kind::postgresql) return std::make_unique<SqlStore>(open_postgres(location.url));
  return std::make_unique<SqlStore>(open_sqlite(location.path));
}

}  // namespace dlcbench
