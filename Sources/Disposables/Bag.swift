import Synchronization

/// An unordered-by-key collection that remembers insertion order: the structure subscriber
/// lists are built on (RxSwift's and ReactiveSwift's `Bag`).
///
/// `insert` hands back a ``Token``; `remove(_:)` takes that token and removes exactly the element
/// it was issued for. Tokens are never reused, not even after ``removeAll()``, so a stale token,
/// or one issued by another bag (a copy included, once it has diverged), removes nothing.
/// Iteration visits elements in insertion order.
///
/// `Bag` is a value type (copy on write) and, like `Array`, not synchronised: guard a shared one
/// with a lock.
public struct Bag<Element>: Sequence {
    /// Identifies one inserted element of one bag. Hashable so callers may key by it.
    public struct Token: Hashable, Sendable {
        /// Unique across every bag of the process, so that two copies of one bag, which share
        /// their history, still never issue the same token for different elements.
        fileprivate let serial: UInt64
    }

    // Elements live in insertion order in `slots`; removal leaves a hole (nil) and `positions`
    // maps each live token's serial to its slot. Holes are squeezed out once they outnumber the
    // live elements, so removal stays O(1) amortised and memory proportional to `count`.
    private var slots: [(serial: UInt64, element: Element)?] = []
    private var positions: [UInt64: Int] = [:]

    /// An empty bag.
    public init() {}

    /// The number of elements. - Complexity: O(1).
    public var count: Int { positions.count }

    /// Whether the bag has no elements. - Complexity: O(1).
    public var isEmpty: Bool { positions.isEmpty }

    /// Adds `element` after every element already present and returns its token.
    /// - Complexity: O(1) amortised.
    /// - Parameter element: the element to add.
    /// - Returns: the token that removes exactly this element with ``remove(_:)``.
    @discardableResult
    public mutating func insert(_ element: Element) -> Token {
        let serial = tokenSerials.wrappingAdd(1, ordering: .relaxed).newValue
        positions[serial] = slots.count
        slots.append((serial, element))
        return Token(serial: serial)
    }

    /// Removes and returns the element `token` was issued for, or returns nil when it was already
    /// removed or `token` came from another bag. - Complexity: O(1) amortised.
    ///
    /// - Parameter token: a token ``insert(_:)`` returned.
    /// - Returns: the removed element, or nil if there was none for `token`.
    @discardableResult
    public mutating func remove(_ token: Token) -> Element? {
        guard let index = positions.removeValue(forKey: token.serial) else {
            return nil
        }
        let element = slots[index]!.element
        slots[index] = nil
        compactIfSparse()
        return element
    }

    /// Removes every element. Tokens issued before stay invalid forever. - Complexity: O(n).
    public mutating func removeAll() {
        slots.removeAll()
        positions.removeAll()
    }

    private mutating func compactIfSparse() {
        let holes = slots.count - positions.count
        if positions.isEmpty {
            slots.removeAll(keepingCapacity: slots.count <= 64)
            return
        }
        guard holes > 32, holes > positions.count else { return }
        slots.removeAll { $0 == nil }
        for (index, slot) in slots.enumerated() {
            positions[slot!.serial] = index
        }
    }

    /// Iterates the elements in insertion order.
    public struct Iterator: IteratorProtocol {
        private var base: IndexingIterator<[(serial: UInt64, element: Element)?]>

        fileprivate init(_ slots: [(serial: UInt64, element: Element)?]) {
            base = slots.makeIterator()
        }

        public mutating func next() -> Element? {
            while let slot = base.next() {
                if let slot { return slot.element }
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(slots)
    }

    public var underestimatedCount: Int { count }
}

extension Bag: Sendable where Element: Sendable {}

/// Numbers every token of every bag, so a token cannot remove from a bag that did not issue it:
/// per-bag numbering would let two copies of one bag issue equal tokens once they diverge.
/// (2^64 inserts would take centuries.)
private let tokenSerials = Atomic<UInt64>(0)
