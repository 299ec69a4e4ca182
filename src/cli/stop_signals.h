#pragma once

namespace segfeed::cli {

// SIGINT and SIGTERM as a request to stop: bench ends its run after the
// batch in hand, with its report. The handlers are installed with
// SA_RESETHAND, so a second signal kills the process as before, and
// without SA_RESTART, so a blocking wait sees EINTR sooner.
void InstallStopHandlers();

// Whether SIGINT or SIGTERM has arrived since InstallStopHandlers().
bool StopSignalled();

}  // namespace segfeed::cli
