import CJXL

/// The parallel runner given to every libjxl decoder and encoder: it runs each task on the
/// calling thread, in order, as libjxl does with no runner, and fails the run once the thread's
/// ``WorkCancellation`` is cancelled, which ends the decode or encode with an error between two
/// of libjxl's tasks (a group of pixels, a pass).
enum JXLSerialRunner {
    /// libjxl's code for a runner that failed.
    private static let failed: JxlParallelRetCode = -1

    /// The runner function (its opaque pointer is unused).
    static let run: JxlParallelRunner = { _, opaque, initialize, task, start, end in
        guard let initialize, let task else { return failed }
        let status = initialize(opaque, 1)
        guard status == 0 else { return status }
        var value = start
        while value < end {
            if WorkCancellation.isCurrentCancelled { return failed }
            task(opaque, value, 0)
            value += 1
        }
        return 0
    }
}
