@_spi(SchedulersInternal) import Disposables

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where ``MainActorStandIn``s live: 32-byte slots in blocks of 64 KiB that the slab maps from
/// the system itself (`mmap`), each slot one stand-in that is never freed, made with the Swift
/// runtime's `swift_initStaticObject` (the entry point compiled code uses for objects in static
/// memory), so that its reference count is immortal.
///
/// Why not `MainActorStandIn()` on the heap: each never-freed object then sat alone among the
/// short-lived allocations of its test, and the freed memory around it could no longer hold the
/// next test's larger allocations, which went to fresh memory at the top of the heap. Measured
/// with the `workload` benchmark (mallinfo2, 20,000 then 100,000 synchronous captures):
/// 32 bytes per capture stayed allocated (one stand-in), but the heap grew by ~380 bytes per
/// capture, ~350 of them free and unusable. Packed together here, the stand-ins pin nothing.
///
/// Why mapped, not `malloc`ed, blocks: a block from the heap carried the allocator's header, and
/// one slot of each went to a link to the block before it, so that memcheck counted the blocks as
/// still reachable: 32.1 bytes per scheduler, not 32. A mapped block has neither (memcheck does
/// not count mapped memory as the heap's), and its pages are zero, as a slot must start, and
/// become resident only when a stand-in is first made in them: resident memory grows by 32 bytes
/// per scheduler and by nothing ahead of the stand-ins (`workload memory`, Performance.md).
///
/// A slot is 32 bytes: the once-token `swift_initStaticObject` keeps before the object, the
/// object (header only: a stand-in has no stored properties), and the word after it, its
/// ``MainActorStandIn`` link to its scheduler. Thread-safe: slots are handed out under a lock.
enum MainActorStandInSlab {
    /// A Swift object's header: its metadata pointer and its reference counts.
    static let objectSize = 2 * MemoryLayout<UnsafeRawPointer>.size

    /// Once-token, object, link.
    private static let slotSize = MemoryLayout<Int>.size + objectSize + MemoryLayout<UnsafeRawPointer>.size

    /// 64 KiB: a mapping per 2,048 schedulers that captured main-actor work, and a whole number
    /// of pages on every platform Swift runs on (4 KiB, 16 KiB).
    private static let blockSize = 64 * 1024

    /// The next free slot and how many remain in its block (none before the first block).
    private struct State: @unchecked Sendable {
        // `@unchecked`: the address is only used under the lock.
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
                state.next = mapBlock()
                state.remaining = blockSize / slotSize
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

    /// A new block of zeroed, readable and writable memory, never unmapped: zero is a slot's
    /// start (a token of 0 means "not yet initialised", a link of 0 means nil). Its pages become
    /// resident as stand-ins are made in them.
    private static func mapBlock() -> UnsafeMutableRawPointer {
        let block = mmap(nil, blockSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        // Out of address space: there is nowhere to make the stand-in, and a job that must run
        // on the main actor cannot run without it.
        guard let block, block != UnsafeMutableRawPointer(bitPattern: -1) else {
            fatalError("MainActorStandInSlab: cannot map \(blockSize) bytes for main-actor stand-ins (errno \(errno))")
        }
        return block
    }
}
