// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl export" (the object, in export.cc): what the backends already
// count, in the Prometheus text exposition format (version 0.0.4), for
// node_exporter's textfile collector or any scraper of files. The text is built by a pure function
// (unit-tested); writing it replaces the file atomically, as the textfile
// collector requires, so a scrape never reads half a file.
#ifndef MLTCPCTL_EXPORT_H
#define MLTCPCTL_EXPORT_H

#include <optional>
#include <string>
#include <vector>

#include "model.h"

namespace mltcpctl
{

// One scrape of one backend in one network namespace.
struct Scrape {
	std::string backend; // "kmod" or "bpf": the backend label
	std::string netns;   // the netns label: the name given with -n, "" for mltcpctl's own
	std::vector<Job> jobs;
	std::vector<Flow> flows;
	Stats stats;
};

// Every metric of the scrape, each family with its HELP and TYPE lines.
// A counter the backend does not keep (the BPF twin has no job counters) is
// left out, not reported as 0; a job's F only while it has live flows.
std::string prometheus_text(const Scrape &scrape);

// Writes text to a temporary file in path's directory and renames it over
// path, readable by all (the collector usually runs as another user).
// Throws Error; the temporary file never outlives a failure.
void replace_file(const std::string &path, const std::string &text);

} // namespace mltcpctl

#endif // MLTCPCTL_EXPORT_H
