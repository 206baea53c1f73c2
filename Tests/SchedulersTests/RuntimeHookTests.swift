@testable import Schedulers
import Testing
import TestSupport

/// `RuntimeHook` (Sources/Schedulers/Virtual/Capture/Hooks/RuntimeHook.swift), over a word of the
/// test's own standing in for the runtime's variable, so that other libraries' habits can be
/// played out exactly, with no other test's capture in the way. The real thing, against
/// swift-concurrency-extras itself, is Integrations/ConcurrencyExtras.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct RuntimeHookTests {
    /// Bits standing in for hooks: only compared and handed on, never called.
    private static let ours: UInt = 0x1000
    private static let foreign: UInt = 0x2000

    /// A word and a `RuntimeHook` over it.
    private final class Fixture: @unchecked Sendable {
        let word = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
        let hook: RuntimeHook

        init(holding value: UInt) {
            word.initialize(to: value)
            hook = RuntimeHook(variable: UnsafeMutableRawPointer(word), hook: RuntimeHookTests.ours)
        }

        deinit { word.deallocate() }

        var value: UInt {
            get { word.pointee }
            set { word.pointee = newValue }
        }

        /// What a job we do not handle would be handed to: a hook's bits, or nil for the original.
        func forwardTarget() -> UInt? {
            hook.forward(to: { Optional($0) }, else: { nil })
        }

        /// swift-concurrency-extras 1.4.3's `withMainSerialExecutor`: it saves only whether a hook
        /// is set, and on exit puts *its own* hook back if one was.
        func withMainSerialExecutor(_ body: () -> Void) {
            let didUse = value != 0
            value = RuntimeHookTests.foreign
            body()
            value = didUse ? RuntimeHookTests.foreign : 0
        }
    }

    @Test func oursIsInstalledOnlyWhileHeld() throws {
        let fixture = Fixture(holding: 0)
        let tenure = try #require(fixture.hook.acquire())
        #expect(fixture.value == Self.ours)
        #expect(fixture.forwardTarget() == nil)
        fixture.hook.release(tenure)
        #expect(fixture.value == 0)
    }

    /// Captures on several threads share one installation: the last release takes it out.
    @Test func overlappingTenuresShareOneInstallation() throws {
        let fixture = Fixture(holding: 0)
        let first = try #require(fixture.hook.acquire())
        let second = try #require(fixture.hook.acquire())
        fixture.hook.release(first)
        #expect(fixture.value == Self.ours)
        let third = try #require(fixture.hook.acquire())
        fixture.hook.release(second)
        #expect(fixture.value == Self.ours)
        fixture.hook.release(third)
        #expect(fixture.value == 0)
    }

    /// A hook installed before ours gets what ours does not take, and is put back after.
    @Test func anEarlierHookIsForwardedToAndPutBack() throws {
        let fixture = Fixture(holding: Self.foreign)
        let tenure = try #require(fixture.hook.acquire())
        #expect(fixture.value == Self.ours)
        #expect(fixture.forwardTarget() == Self.foreign)
        fixture.hook.release(tenure)
        #expect(fixture.value == Self.foreign)
        // No longer installed: nothing is forwarded to a hook recorded earlier.
        #expect(fixture.forwardTarget() == nil)
    }

    /// `withMainSerialExecutor` inside a capture leaves its own hook where ours was; the capture's
    /// end puts back what the capture found.
    @Test func aHookLeftBehindInsideATenureIsUndoneAtItsEnd() throws {
        let fixture = Fixture(holding: 0)
        let tenure = try #require(fixture.hook.acquire())
        fixture.withMainSerialExecutor {}
        #expect(fixture.value == Self.foreign)
        fixture.hook.release(tenure)
        #expect(fixture.value == 0)
        // And so the library's next scope finds nothing, and leaves nothing.
        fixture.withMainSerialExecutor {}
        #expect(fixture.value == 0)
    }

    /// A capture inside `withMainSerialExecutor` inside a capture: the innermost forwards to the
    /// library's hook and puts it back for the scope around it.
    @Test func aTenureInsideAnotherLibrarysScopePutsItsHookBack() throws {
        let fixture = Fixture(holding: 0)
        let outer = try #require(fixture.hook.acquire())
        fixture.withMainSerialExecutor {
            let inner = try! #require(fixture.hook.acquire())
            #expect(fixture.value == Self.ours)
            #expect(fixture.forwardTarget() == Self.foreign)
            fixture.hook.release(inner)
            #expect(fixture.value == Self.foreign)
        }
        fixture.hook.release(outer)
        #expect(fixture.value == 0)
    }

    /// Enclosed by the library's scope, all the way: the library's hook stays while its scope
    /// runs, and the scope ends with nothing installed.
    @Test func aTenureInsideTheLibrarysScopeLeavesItsHook() throws {
        let fixture = Fixture(holding: 0)
        fixture.withMainSerialExecutor {
            let outer = try! #require(fixture.hook.acquire())
            fixture.withMainSerialExecutor {}
            fixture.hook.release(outer)
            #expect(fixture.value == Self.foreign)
        }
        #expect(fixture.value == 0)
    }

    /// Someone took every hook out while ours was held: that stays so.
    @Test func aVariableClearedByAnotherStaysClear() throws {
        let fixture = Fixture(holding: Self.foreign)
        let tenure = try #require(fixture.hook.acquire())
        fixture.value = 0
        fixture.hook.release(tenure)
        #expect(fixture.value == 0)
    }

    /// A displaced hook that calls the one it replaced (ours) reaches the original, not ours
    /// again; inside it, every further forward does too, however deep; after it, forwarding is as
    /// before.
    @Test func forwardingNeverGoesRoundInACircle() throws {
        let fixture = Fixture(holding: Self.foreign)
        let tenure = try #require(fixture.hook.acquire())
        defer { fixture.hook.release(tenure) }
        let inside = fixture.hook.forward(
            to: { _ in [fixture.forwardTarget(), fixture.forwardTarget()] },
            else: { [] })
        #expect(inside == [nil, nil])
        #expect(fixture.forwardTarget() == Self.foreign)
    }

    @Test func aMissingVariableIsReported() {
        let hook = RuntimeHook(variable: nil, hook: Self.ours)
        #expect(!hook.isAvailable)
        #expect(hook.acquire() == nil)
    }
}
