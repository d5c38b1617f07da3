import WebImageCodecs
import Foundation
import Glibc

/// Extended data: extra bytes per entry (e.g. HTTP validators), in an xattr or a sidecar file.
extension DiskCache {
    /// The extended attribute that holds an entry's extended data.
    public static let extendedAttributeName = "user.webimage.extended"

    /// The extended data stored beside `key`'s entry (SDWebImage's `extendedDataForKey:`), or nil.
    public func extendedData(forKey key: String) -> Data? {
        if let packed {
            let bytes = Array(key.utf8)
            return packed.record(forKey: bytes, hash: PackedKeyHash.hash(bytes))?.extendedData
        }
        guard let name = existingName(forKey: key) else { return nil }
        if usesExtendedAttributes,
           case .success(let data) = ExtendedAttributes.value(named: Self.extendedAttributeName, atPath: path(forName: name)) {
            return data
        }
        guard config.extendedDataStorage != .extendedAttributes else { return nil }
        return try? DiskCacheFileSystem.readFile(atPath: sidecarPath(forName: name)).get()
    }

    /// Stores `data` beside `key`'s entry (nil removes it), in an xattr or a sidecar file per the config.
    public func setExtendedData(_ data: Data?, forKey key: String) throws {
        if let packed { return try packed.setExtendedData(data, forKey: Array(key.utf8)) }
        guard let name = existingName(forKey: key) else {
            guard data != nil else { return }
            throw WebImageError(.cacheFailure, "Cannot store extended data for a key with no disk cache entry; store its data first (key \(key.prefix(200))).")
        }
        let path = path(forName: name)
        guard let data else {
            ExtendedAttributes.removeValue(named: Self.extendedAttributeName, atPath: path)
            DiskCacheFileSystem.removeFile(atPath: sidecarPath(forName: name))
            return
        }
        if usesExtendedAttributes {
            do {
                try ExtendedAttributes.setValue(data, named: Self.extendedAttributeName, atPath: path)
                state.withLock { $0.extendedAttributesSupported = true }
                DiskCacheFileSystem.removeFile(atPath: sidecarPath(forName: name))
                return
            } catch {
                let unsupported = ExtendedAttributes.isUnsupported(error.code)
                let tooBig = error.code == E2BIG || error.code == ENOSPC || error.code == ERANGE
                guard config.extendedDataStorage == .automatic, unsupported || tooBig else {
                    throw WebImageError(.cacheFailure, "Could not set the extended attribute \(Self.extendedAttributeName) on \(path): \(error.text) (errno \(error.code)).\(unsupported ? " Use DiskCacheExtendedDataStorage.sidecarFiles on this file system." : "")")
                }
                if unsupported { state.withLock { $0.extendedAttributesSupported = false } }
                // Fall through to a sidecar file.
            }
        }
        try writeSidecar(data, forName: name)
    }

    /// Whether to try extended attributes first: forced, or automatic and not known to fail here.
    private var usesExtendedAttributes: Bool {
        switch config.extendedDataStorage {
        case .extendedAttributes: true
        case .sidecarFiles: false
        case .automatic: state.withLock { $0.extendedAttributesSupported } != false
        }
    }

    /// Writes the sidecar atomically (temporary file, then rename) and drops any stale attribute.
    private func writeSidecar(_ data: Data, forName name: String) throws {
        let sidecar = sidecarPath(forName: name)
        let date = Date().timeIntervalSince1970
        let temporary: String
        do {
            temporary = try DiskCacheFileSystem.writeTemporaryFile(data, inDirectory: directoryPath, date: date)
        } catch {
            throw writeError(sidecar, error)
        }
        guard rename(temporary, sidecar) == 0 else {
            let failure = DiskCacheFileSystem.Failure()
            DiskCacheFileSystem.removeFile(atPath: temporary)
            throw writeError(sidecar, failure)
        }
        if config.extendedDataStorage == .automatic {
            ExtendedAttributes.removeValue(named: Self.extendedAttributeName, atPath: path(forName: name))
        }
    }
}
