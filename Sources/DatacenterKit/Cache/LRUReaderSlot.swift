import Synchronization

/// Where the gets of one thread (or a few, when there are more threads than slots) on an
/// `LRUMemoryCache` announce themselves and record the entries they used.
///
/// A get holds its slot while it reads the cache, so a change waits for it; and it records
/// its use here instead of reordering the cache's list, which is done later, when the slot
/// is full or before a change. So a get writes only its own slot, a cache line no other core
/// writes meanwhile: gets on several cores run side by side. Applying a slot's uses claims
/// it for that time, so its get neither records nor is waited for meanwhile.
final class LRUReaderSlot: @unchecked Sendable {
    /// Keeps the fields gets write off the cache lines of the neighbouring slots (they are
    /// allocated one after another).
    private let leadingPad: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// 0: free; 1: a get reads the cache through this slot; 2: its uses are being applied.
    private let state = Atomic<Int>(0)
    /// How many uses are recorded and not yet applied.
    private(set) var count = 0
    /// The recorded uses, oldest first: the entries' slots and their stamps.
    private let slots: UnsafeMutablePointer<Int32>
    private let stamps: UnsafeMutablePointer<UInt64>
    private let trailingPad: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// How many uses a slot holds before its get applies them all.
    static let capacity = 64

    init() {
        slots = .allocate(capacity: Self.capacity)
        stamps = .allocate(capacity: Self.capacity)
    }

    deinit {
        slots.deallocate()
        stamps.deallocate()
    }

    /// Claims the slot for a get; false when another thread holds it.
    @inline(__always) func enter() -> Bool {
        state.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged
    }

    /// Gives the slot up, publishing what the get recorded (or, after `claim`, that its
    /// uses are applied).
    @inline(__always) func leave() { state.store(0, ordering: .releasing) }

    /// Claims a free slot to apply its uses; false while a get holds it.
    func claim() -> Bool {
        state.compareExchange(expected: 0, desired: 2, ordering: .acquiring).exchanged
    }

    /// True while a get holds the slot or its uses are being applied.
    var isHeld: Bool { state.load(ordering: .sequentiallyConsistent) != 0 }

    /// True when the slot can record no more uses until they are applied.
    var isFull: Bool { count == Self.capacity }

    /// Records a use of the entry in `slot`, stamped `stamp` (hold the slot); true when the
    /// slot is now full.
    @inline(__always) func record(_ slot: Int32, stamp: UInt64) -> Bool {
        slots[count] = slot
        stamps[count] = stamp
        count += 1
        return count == Self.capacity
    }

    /// The `index`th recorded use.
    func use(_ index: Int) -> (slot: Int32, stamp: UInt64) { (slots[index], stamps[index]) }

    /// Forgets the recorded uses (once applied).
    func clear() { count = 0 }
}
