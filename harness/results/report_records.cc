#include "harness/results/report_records.h"

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace gradsync {

void ReportRecords::add(const StoredRecord& record) {
  strategies_.add(record.value);
  if (auto run = train_.add(record); run && has_wire_rows(*run)) wired_.add(std::move(*run));
  if (record.value.value("kind", "") == "collectives") add_collectives(record);
  if (held() > max_held_)
    throw std::runtime_error(
        record.origin + ": more than " + std::to_string(max_held_) +
        " distinct configurations to report (train runs and collectives sizes): too many for one "
        "report; report fewer files at once");
}

// One collectives run read once for the three folds that take it; a record
// that cannot be read is each fold's error.
void ReportRecords::add_collectives(const StoredRecord& record) {
  has_collectives_ = true;
  CollectivesRun run;
  try {
    run = read_collectives_run(record);
  } catch (const std::runtime_error&) {
    const std::exception_ptr error = std::current_exception();
    columns_error_.keep(error);
    collectives_json_.fail(error);
    collectives_wire_.fail(error);
    return;
  }
  columns_error_.guard([&] { columns_.add(run); });
  collectives_json_.add(record, run);
  collectives_wire_.add(record, run);
}

std::vector<ReportTable> ReportRecords::tables(const std::string& metric) const {
  std::vector<ReportTable> tables = training_report(train_.measured(), train_.simulated());
  if (has_collectives_ || tables.empty()) {
    columns_error_.rethrow();
    tables.push_back(columns_.table(metric));
  }
  if (auto wire = wire_report(wired_.runs(), collectives_wire_)) tables.push_back(std::move(*wire));
  return tables;
}

nlohmann::json ReportRecords::json() const {
  return report_json(strategies_, train_, collectives_json_);
}

}  // namespace gradsync
