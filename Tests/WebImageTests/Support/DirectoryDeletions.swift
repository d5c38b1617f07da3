import Dispatch
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Counts deletions in one directory as the kernel reports them (inotify), so a test can await a
/// background step that removes files — each wait wakes on a real deletion, never on a clock.
final class DirectoryDeletions: @unchecked Sendable {  // `source` is only set in init and cancelled in deinit
    private let events = Watched(0)
    private let source: DispatchSourceRead

    /// Watches `path`; nil where inotify is unavailable.
    init?(path: String) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        guard inotify_add_watch(fd, path, UInt32(IN_DELETE)) >= 0 else {
            close(fd)
            return nil
        }
        let events = self.events
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "test.inotify"))
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var count = 0
            while read(fd, &buffer, buffer.count) > 0 { count += 1 }
            let total = count
            if total > 0 { events.update { $0 += total } }
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    deinit { source.cancel() }

    /// Waits until `condition` holds, checking it now and after every deletion in the directory.
    @discardableResult
    func wait(_ what: @autoclosure () -> String,
              until condition: @escaping @Sendable () -> Bool) async -> Bool {
        await events.wait(what()) { _ in condition() }
    }
}
