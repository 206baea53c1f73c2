@_spi(SchedulersInternal) import Disposables

/// Where ``MainActorStandIn``s live: blocks of 512 slots of 32 bytes (16 KiB), each slot but the first one stand-in that is never
/// freed, made with the Swift runtime's `swift_initStaticObject` (the entry point compiled code
/// uses for objects in static memory), so that its reference count is immortal.
///
/// Why not `MainActorStandIn()` on the heap: each never-freed object then sat alone among the
/// short-lived allocations of its test, and the freed memory around it could no longer hold the
/// next test's larger allocations, which went to fresh memory at the top of the heap. Measured
/// with the `workload` benchmark (mallinfo2, 20,000 then 100,000 synchronous captures):
/// 32 bytes per capture stayed allocated (one stand-in), but the heap grew by ~380 bytes per
/// capture, ~350 of them free and unusable. Packed together here, the stand-ins pin nothing.
///
/// A slot is 32 bytes: the once-token `swift_initStaticObject` keeps before the object, the
/// object (header only: a stand-in has no stored properties), and the word after it, its
/// ``MainActorStandIn`` link to its scheduler. A block's first slot holds the address of the
/// block before it, so that every block stays reachable from here (memcheck counts them as
/// still reachable, as it did the heap's stand-ins, not as lost). Thread-safe: slots are handed
/// out under a lock.
enum MainActorStandInSlab {
    /// A Swift object's header: its metadata pointer and its reference counts.
    static let objectSize = 2 * MemoryLayout<UnsafeRawPointer>.size

    /// Once-token, object, link.
    private static let slotSize = MemoryLayout<Int>.size + objectSize + MemoryLayout<UnsafeRawPointer>.size

    private static let slotsPerBlock = 512

    /// The newest block, the next free slot in it and how many remain (none before the first).
    private struct State: @unchecked Sendable {
        // `@unchecked`: the addresses are only used under the lock.
        var newestBlock: UnsafeMutableRawPointer?
        var next: UnsafeMutableRawPointer?
        var remaining = 0
    }

    private static let state = Lock(State())

    private typealias InitStaticObject = @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer) -> UnsafeMutableRawPointer

    /// `swift_initStaticObject(metadata, object)`: sets up `object`'s header for `metadata`'s
    /// class with an immortal reference count (retains and releases do nothing, it is never
    /// freed), once, guarded by the token in the word before `object`. Looked up: the compiler
    /// reserves runtime names. The runtime exports it on every platform (compiled code calls
    /// it); were it absent, there would be nowhere to make a stand-in, so the message names it.
    private static let initStaticObject: InitStaticObject = {
        guard let address = RuntimeSymbol.address(of: "swift_initStaticObject") else {
            fatalError("MainActorStandInSlab: the Swift runtime does not export swift_initStaticObject")
        }
        return unsafeBitCast(address, to: InitStaticObject.self)
    }()

    /// A new stand-in, never freed, with a nil link.
    static func make() -> MainActorStandIn {
        let slotAddress = state.withLock { state -> UInt in
            if state.remaining == 0 {
                // Zeroed: a token of 0 means "not yet initialised", and a link of 0 means nil.
                let block = UnsafeMutableRawPointer.allocate(byteCount: slotSize * slotsPerBlock, alignment: 16)
                block.initializeMemory(as: UInt8.self, repeating: 0, count: slotSize * slotsPerBlock)
                block.storeBytes(of: state.newestBlock, as: UnsafeMutableRawPointer?.self)
                state.newestBlock = block
                state.next = block.advanced(by: slotSize)
                state.remaining = slotsPerBlock - 1
            }
            let slot = state.next!
            state.next = slot.advanced(by: slotSize)
            state.remaining -= 1
            return UInt(bitPattern: slot)
        }
        let slot = UnsafeMutableRawPointer(bitPattern: slotAddress)!
        let metadata = unsafeBitCast(MainActorStandIn.self as AnyClass, to: UnsafeRawPointer.self)
        let object = initStaticObject(metadata, slot.advanced(by: MemoryLayout<Int>.size))
        return Unmanaged<MainActorStandIn>.fromOpaque(object).takeUnretainedValue()
    }
}
