import Foundation
import Synchronization
import WebImage

/// Which results on this instance's disk were made from each source, so that a changed or purged
/// source's results are deleted rather than only left unreachable (their keys end with the
/// identity of the bytes they were made from). One small entry per source, the JSON array of its
/// result keys, in a disk cache of its own with its own size and age limits. An index entry lost,
/// trimmed or full only leaves those results to the result cache's own trimming.
final class ResultIndex: Sendable {
    private let entries: DiskCache
    /// Serialises this process's read-modify-write of an entry (another process sharing the
    /// directory may still lose a key, which only delays that result's removal).
    private let writing = Mutex(())
    /// The most result keys kept per source; later ones are not recorded.
    let maxKeysPerSource: Int

    init(directory: URL, maxKeysPerSource: Int = 1024) {
        self.maxKeysPerSource = maxKeysPerSource
        var config = DiskCacheConfig(directory: directory, namespace: "webimage-serve-result-index")
        config.maxDiskSize = 64 * 1024 * 1024
        entries = DiskCache(config: config)
    }

    /// Notes that the result stored under `resultKey` was made from `source`.
    func record(_ resultKey: String, madeFrom source: String) {
        writing.withLock { _ in
            let keys = read(source)
            guard !keys.contains(resultKey), keys.count < maxKeysPerSource,
                  let data = try? JSONEncoder().encode(keys + [resultKey]) else { return }
            try? entries.setData(data, forKey: source)
        }
    }

    /// The keys of the results made from `source`, removed from the index.
    func take(madeFrom source: String) -> [String] {
        writing.withLock { _ in
            defer { entries.removeData(forKey: source) }
            return read(source)
        }
    }

    private func read(_ source: String) -> [String] {
        guard let data = entries.data(forKey: source),
              let keys = try? JSONDecoder().decode([String].self, from: data) else { return [] }
        return keys
    }
}
