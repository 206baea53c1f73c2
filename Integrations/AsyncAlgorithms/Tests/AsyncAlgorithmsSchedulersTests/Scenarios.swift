import Testing

/// Every scenario of this package, each repeated 1,000 times once quietly and once beside busy
/// tasks. Serialized, so that the busy tasks have the cooperative pool's other thread to show
/// their progress on (the machine has 2 cores).
@Suite(.serialized) struct Scenarios {}
