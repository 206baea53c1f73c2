#include "HopEntryReading.h"

// Zero on every new thread: no hop has entered the hook here.
_Thread_local int64_t schedulers_hop_entry_continuous = 0;
_Thread_local int64_t schedulers_hop_entry_suspending = 0;
