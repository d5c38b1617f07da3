import Foundation
import Synchronization

/// What the library has learnt about the profiles it has met: each profile's facts and, per kind
/// of pixels, its conversion to sRGB (nil for sRGB profiles and profiles lcms2 rejects, which is
/// how sRGB-tagged images skip conversion at the cost of one lookup).
///
/// Keyed by the profile's bytes (hashed, compared whole), so a site serving thousands of photos
/// from one camera builds one conversion. Thread-safe; bounded by entry count and by the bytes
/// of the profiles it keeps, least recently used first out. A conversion is built outside the
/// lock; two threads meeting a new profile at once may both build it, and one copy is kept.
final class ColorConversionCache: Sendable {
    static let shared = ColorConversionCache(maxEntries: 32, maxBytes: 8 << 20)

    /// A profile's description and colour space; both nil when lcms2 rejects it.
    struct Facts: Sendable {
        var description: String?
        var colorSpace: ColorProfile.ColorSpace?
    }

    /// The bytes are kept as an array, not `Data`, whose packed representation LeakSanitizer
    /// cannot follow (so a process exiting with profiles cached would report them as leaked).
    private struct Key: Hashable {
        let icc: [UInt8]
        /// nil for a facts-only entry.
        let source: ColorSource?
    }

    private struct Entry {
        let facts: Facts
        let conversion: ColorConversion?
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    private let maxEntries: Int
    private let maxBytes: Int
    private let state = Mutex(State())

    init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
    }

    /// The facts of the profile in `icc`.
    func facts(for icc: Data) -> Facts { entry(Key(icc: [UInt8](icc), source: nil)).facts }

    /// The facts of the profile in `icc` and its conversion for `source` pixels (nil: leave the
    /// pixels as they are).
    func conversion(for icc: Data, source: ColorSource) -> (facts: Facts, conversion: ColorConversion?) {
        let found = entry(Key(icc: [UInt8](icc), source: source))
        return (found.facts, found.conversion)
    }

    /// How many entries are kept (for tests).
    var count: Int { state.withLock { $0.entries.count } }

    private func entry(_ key: Key) -> Entry {
        let cached = state.withLock { state -> Entry? in
            state.clock += 1
            guard var entry = state.entries[key] else { return nil }
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry
        }
        if let cached { return cached }
        var built = Self.build(key)
        state.withLock { state in
            if state.entries[key] == nil { state.bytes += key.icc.count }
            state.clock += 1
            built.lastUse = state.clock
            state.entries[key] = built
            evict(&state)
        }
        return built
    }

    private func evict(_ state: inout State) {
        while state.entries.count > maxEntries || (state.bytes > maxBytes && state.entries.count > 1) {
            guard let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { return }
            state.entries[oldest] = nil
            state.bytes -= oldest.icc.count
        }
    }

    private static func build(_ key: Key) -> Entry {
        let profile = key.icc.withUnsafeBytes { LCMSProfile(icc: $0) }
        guard let profile else { return Entry(facts: Facts(), conversion: nil, lastUse: 0) }
        let facts = Facts(description: profile.profileDescription, colorSpace: profile.colorSpace)
        let conversion = key.source.flatMap { ColorConversion.make(profile: profile, source: $0) }
        return Entry(facts: facts, conversion: conversion, lastUse: 0)
    }
}
