// The campaign's report: tables on stdout and the JSON document.
#ifndef AEGIS_INJECT_REPORT_H
#define AEGIS_INJECT_REPORT_H

#include <string>

#include "campaign.h"
#include "command_line.h"
#include "device.h"
#include "inject_options.h"

namespace aegis::inject {

void print_report(const InjectOptions& options, const CampaignReport& report);

// False if the file cannot be written.
bool write_json_report(const std::string& path, const bench::Invocation& invocation,
                       const bench::DeviceInfo& device, const InjectOptions& options,
                       const CampaignReport& report);

}  // namespace aegis::inject

#endif  // AEGIS_INJECT_REPORT_H
