import WebImageCodecs
import Synchronization

/// The placeholder of one ``ImageTargetLoad``: the image the caller gave, else the context's
/// ``WebImageContext/placeholderHash`` decoded the first time it is shown (a load that shows a
/// memory hit never decodes it); nil when there is neither or the hash does not decode.
final class LoadPlaceholder: Sendable {
    private let given: Image?
    private let hash: PlaceholderHash?
    /// The decoded hash once asked for (nil inside: it did not decode).
    private let decoded = Mutex<Image??>(nil)

    init(given: Image?, hash: PlaceholderHash?) {
        self.given = given
        self.hash = given == nil ? hash : nil
    }

    var image: Image? {
        if let given { return given }
        guard let hash else { return nil }
        return decoded.withLock { decoded in
            if let done = decoded { return done }
            let image = try? hash.decode()
            decoded = .some(image)
            return image
        }
    }
}
