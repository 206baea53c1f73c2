#include "RealClockStretch.h"

// Zero on every new thread: no stretch runs here, none is interrupted, no hop is parked or waiting.
_Thread_local schedulers_stretch schedulers_stretch_running = {0};
_Thread_local schedulers_stretch schedulers_stretch_outer[SCHEDULERS_STRETCH_NESTING] = {{0}};
_Thread_local uint32_t schedulers_stretch_depth = 0;
_Thread_local uintptr_t schedulers_stretch_parked_job = 0;
_Thread_local schedulers_moment schedulers_stretch_hop_entry = {0, 0};
