import Foundation
import Testing
@testable import WebImageCodecs

/// The per-profile cache: bounded, shared between threads, and exact about which profile is which.
@Suite("Colour: conversion cache")
struct ColorConversionCacheTests {
    /// `count` distinct readable profiles (PNG gamma profiles 1.0, 1.1, …).
    func profiles(_ count: Int) -> [Data] {
        (0..<count).compactMap { ColorProfile.png(gamma: 1 / (1.0 + Double($0) / 10), chromaticities: nil)?.iccData }
    }

    @Test func keepsAtMostItsEntryLimit() {
        let cache = ColorConversionCache(maxEntries: 4, maxBytes: 1 << 20)
        for icc in profiles(10) { _ = cache.conversion(for: icc, source: .rgb) }
        #expect(cache.count == 4)
    }

    @Test func keepsAtMostItsByteLimit() throws {
        let icc = profiles(6)
        let size = try #require(icc.first?.count)
        let cache = ColorConversionCache(maxEntries: 100, maxBytes: size * 3)
        for profile in icc { _ = cache.conversion(for: profile, source: .rgb) }
        #expect(cache.count <= 3)
    }

    @Test func sameProfileGivesTheSameConversion() throws {
        let cache = ColorConversionCache(maxEntries: 4, maxBytes: 1 << 20)
        let first = try #require(cache.conversion(for: ColorFixtures.displayP3, source: .rgb).conversion)
        let again = try #require(cache.conversion(for: ColorFixtures.displayP3, source: .rgb).conversion)
        #expect(first === again)
        #expect(cache.facts(for: ColorFixtures.displayP3).description == "Test Display P3")
    }

    @Test func concurrentDecodesAgree() async throws {
        let data = try ColorFixtures.taggedJPEG()
        let expected = try JPEGCoder().decode(data, options: .default).bitmap
        try await withThrowingTaskGroup(of: Bitmap.self) { group in
            for _ in 0..<16 { group.addTask { try JPEGCoder().decode(data, options: .default).bitmap } }
            for try await bitmap in group { #expect(bitmap == expected) }
        }
    }
}
