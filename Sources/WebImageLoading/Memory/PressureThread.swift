import Foundation

/// The thread that blocks in `poll` on a ``PressureWatch`` and turns what wakes it into
/// signals. It owns the watch's descriptors and closes them when it ends; ``stop()`` wakes it
/// through a pipe and returns once it has ended.
final class PressureThread: Sendable {
    private let wakeWrite: Int32
    private let wakeRead: Int32
    private let ended = DispatchSemaphore(value: 0)

    /// Starts the thread, or returns nil when no pipe can be made (the watch stays open).
    init?(watch: PressureWatch, quietPeriod: Duration, pollInterval: Duration,
          deliver: @escaping @Sendable (MemoryPressureSignal) -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        _ = fcntl(wakeRead, F_SETFD, FD_CLOEXEC)
        _ = fcntl(wakeWrite, F_SETFD, FD_CLOEXEC)
        let loop = PressureLoop(watch: watch, wakeFD: wakeRead, quietPeriod: quietPeriod,
                                pollInterval: pollInterval, deliver: deliver)
        let ended = ended
        let thread = Thread {
            loop.run()
            watch.close()
            ended.signal()
        }
        thread.name = "webimage.memory-pressure"
        thread.start()
    }

    /// Wakes the thread, waits for it to end and closes the pipe. Call once.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        ended.wait()
        close(wakeRead)
        close(wakeWrite)
    }
}

/// One run of the poll loop; its state lives on the thread.
private struct PressureLoop: Sendable {
    let watch: PressureWatch
    let wakeFD: Int32
    let quietPeriod: Duration
    let pollInterval: Duration
    let deliver: @Sendable (MemoryPressureSignal) -> Void

    func run() {
        // The wake pipe, then each trigger, then memory.events; a descriptor set to -1 is skipped.
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        fds += watch.triggers.map { pollfd(fd: $0.fd, events: Int16(POLLPRI), revents: 0) }
        if watch.eventsFD >= 0 { fds.append(pollfd(fd: watch.eventsFD, events: Int16(POLLPRI), revents: 0)) }
        var counters = watch.openingEvents
        let clock = ContinuousClock()
        var lastSignal: ContinuousClock.Instant?
        while true {
            var timeout = pollInterval
            if let lastSignal { timeout = min(timeout, max(.zero, quietPeriod - (clock.now - lastSignal))) }
            let result = poll(&fds, nfds_t(fds.count), Self.milliseconds(timeout))
            if result < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[0].revents != 0 { return }
            var signalled = false
            for (index, trigger) in watch.triggers.enumerated() {
                let revents = Int32(fds[index + 1].revents)
                if revents & Int32(POLLERR | POLLNVAL) != 0 {
                    // The cgroup is gone: the trigger fires no more.
                    fds[index + 1].fd = -1
                } else if revents & Int32(POLLPRI) != 0 {
                    deliver(.stall(trigger.level))
                    signalled = true
                }
            }
            if let now = watch.readEvents() {
                for event in now.events(since: counters) {
                    deliver(.limit(event))
                    signalled = true
                }
                counters = now
            }
            if signalled {
                lastSignal = clock.now
            } else if let last = lastSignal, clock.now - last >= quietPeriod {
                deliver(.eased)
                lastSignal = nil
            }
        }
    }

    /// A poll timeout in whole milliseconds, rounded up, within `Int32`.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        let total = millis.partialValue.addingReportingOverflow((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        guard !millis.overflow, !total.overflow, total.partialValue <= Int64(Int32.max) else { return Int32.max }
        return Int32(total.partialValue)
    }
}
