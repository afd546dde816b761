/// The batches of `apply` an instance has not written yet, oldest first.
struct AppliedBatches {
    struct Batch {
        let id: Int
        let changes: EditorChanges
    }
    var batches: [Batch] = []
    var nextID = 0
}
