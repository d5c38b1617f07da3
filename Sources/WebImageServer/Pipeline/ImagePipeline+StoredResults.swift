import Foundation
import WebImage

/// Results on this instance's disk: kept with a note of the source they were made from, read
/// back, and deleted together when their source changes or is purged.
extension ImagePipeline {
    /// Keeps a result on disk under `key`, noted in the index of `source`'s results.
    func storeOnDisk(_ data: Data, forKey key: String, madeFrom source: URL) {
        guard let storedResults else { return }
        do {
            try storedResults.setData(data, forKey: key)
            resultIndex?.record(key, madeFrom: source.absoluteString)
        } catch {
            logger.warning("result not stored on disk", metadata: ["error": "\(error)"])
        }
    }

    /// Deletes the results on `disk` that `index` says were made from `source`.
    static func removeStoredResults(madeFrom source: String, disk: DiskCache?, index: ResultIndex?) {
        guard let disk, let index else { return }
        for key in index.take(madeFrom: source) { disk.removeData(forKey: key) }
    }

    /// Drops every result made from `source`: in memory, on this disk (on a worker thread, as
    /// every disk access of a request is) and in the shared tier.
    func dropResults(madeFrom source: String) async {
        results?.removeAll(madeFrom: source)
        _ = try? await CPUWork.run { [storedResults, resultIndex] in
            Self.removeStoredResults(madeFrom: source, disk: storedResults, index: resultIndex)
        }
        await shared?.results.removeGroup(source)
    }

    /// The result kept on disk under `key`, if any.
    func storedResult(forKey key: String, _ job: ResultJob) -> ServedImage? {
        guard let data = storedResults?.data(forKey: key) else { return nil }
        let format = ImageFormat.detect(data)
        guard format != .undefined else { return nil }
        return served(data, format: format, job, record: job.record)
    }
}
