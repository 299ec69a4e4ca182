#pragma once

namespace segfeed::python {

// A process that made a Loader and then forks (os.fork(), multiprocessing
// with the fork start method) leaves a child whose copies of oneTBB's and
// OpenCV's thread state belong to threads that stayed in the parent. The
// child cannot use the Loader (CoreLoader refuses), and it must not run
// those libraries' exit-time destructors either: OpenCV's static TBB arena
// waits in its destructor for worker threads the child does not have, so a
// child that ends with exit() (sys.exit, the end of the script) would hang.
//
// InstallForkedChildExit() (once, when the module loads) arranges that such
// a child, once Python has finalized, ends with _exit(status) after
// flushing stdio, skipping the C-level exit handlers of the libraries.
// Children that end with os._exit (multiprocessing, DataLoader workers) or
// exec are unaffected, and so is every fork made before the first Loader.
void InstallForkedChildExit();

// Called when a Loader is built: from now on forked children exit as above.
void NoteLoaderCreated();

// Called when a Loader starts an epoch, and with it oneTBB's worker threads.
// A child forked after that inherits oneTBB's bookkeeping of workers that
// stayed in the parent: a Loader made there would wait forever for them, so
// ForkedAfterLoaderThreads() tells CoreLoader to refuse it.
void NoteLoaderThreadsStarted();
bool ForkedAfterLoaderThreads();

}  // namespace segfeed::python
