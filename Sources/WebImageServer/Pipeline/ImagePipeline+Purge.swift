import Foundation
import WebImage

/// `POST /purge/SIGNATURE/plain/SOURCE`: a source and every result made from it dropped here and
/// in the shared tier.
extension ImagePipeline {
    /// Checks a purge request's target (`/purge/SIGNATURE/plain/SOURCE` or
    /// `/purge/SIGNATURE/BASE64SOURCE`, the signature over the path after it, made with the
    /// image URLs' keys) and purges its source; returns the source. Refused with 403 when the
    /// server has no key, or the signature does not match.
    func purge(target: String) async throws(ServerError) -> URL {
        guard let signer = parser.signer else {
            throw ServerError(status: 403, name: "purge_not_allowed",
                              message: "Purge requests must be signed, and this server has no key (--key and --salt).")
        }
        let source: URL
        do {
            let request = try RequestPath(String(target.dropFirst(Self.purgePrefix.count)))
            guard signer.isValid(signature: request.signature, for: request.path) else { throw ImageURLError.invalidSignature }
            let segments = request.path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            source = try checkedSource(try SourceURL.decode(segments[...]).source)
        } catch let error as ServerError {
            throw error
        } catch let error as ImageURLError {
            throw ServerError(status: error.status, name: error.name, message: error.message)
        } catch {
            throw .internalError(error)
        }
        await purgeSource(source)
        logger.info("source purged", metadata: ["source": "\(source.absoluteString)"])
        return source
    }

    /// The path every purge request starts with.
    static let purgePrefix = "/purge"

    /// Drops `source`: its record here and in the shared tier (so every instance forgets it on its
    /// next check, and drops its own results of it then), its bytes on this disk and in the shared
    /// tier, and its results in memory, on this disk and in the shared tier.
    func purgeSource(_ source: URL) async {
        let key = source.absoluteString
        await states.forget(key)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            sourceCaches.removeImage(forKey: key, cacheType: .all) { done.resume() }
        }
        await dropResults(madeFrom: key)
    }
}
