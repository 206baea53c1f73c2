#include "CurrentSchedulerSlot.h"

// Zero (nil) on every new thread: "not asked yet" to Scheduler.current.
_Thread_local void *_Nullable schedulers_current_slot = 0;

// Null on every new thread: no world's work runs here (WorldClockSlot.h).
_Thread_local struct schedulers_world_clock *_Nullable schedulers_world_clock_slot = 0;

// 0 until a test binary's clock readings answer from the slot (WorldClockSlot.h).
int schedulers_virtual_readings_installed = 0;

void (*_Nullable schedulers_world_describe_in_flight)(struct schedulers_world_clock *_Nonnull, char *_Nonnull, long) = 0;

// Null until the test support's constructor lends its parts (TestSupportLinkSlot.h).
void (*_Nullable schedulers_test_support_link)(void) = 0;
