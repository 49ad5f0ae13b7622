#if canImport(CZlib)
import CZlib
#endif
import Foundation

/// The model Core Data writes into every SQLite store (`Z_MODELCACHE.Z_CONTENT`): a keyed
/// archive of the `NSManagedObjectModel` the store was last written with, as a raw DEFLATE stream
/// without a zlib header (docs/sqlite-format.md §2.3). Core Data migrates a store from it when the
/// app no longer ships that model.
enum ModelCache {
    /// The most an inflated cache may take: a model of thousands of entities is a few MB.
    static let maximumSize = 64 << 20

    /// The model in a cache's content, or nil when it is not a deflated model archive (a damaged
    /// or foreign file reads as no cache, never a crash).
    static func model(from content: Data) -> NSManagedObjectModel? {
        guard let archive = inflate(content), CompiledModelReader.looksCompiled(archive) else { return nil }
        return try? XcodeModelLoader.model(from: archive, file: URL(fileURLWithPath: "Z_MODELCACHE"))
    }

    /// The cache content for `model`: its keyed archive as a raw DEFLATE stream, as Core Data
    /// writes it; nil where zlib is not available (the store then has no cache, which Core Data
    /// accepts: it rewrites one).
    ///
    /// - Complexity: O(n) in the model's size.
    static func content(for model: NSManagedObjectModel) -> Data? {
        deflate(ModelCacheWriter.archive(model))
    }

    /// `data` as a raw DEFLATE stream (no zlib header or checksum), at zlib's default level.
    ///
    /// - Complexity: O(n).
    static func deflate(_ data: Data) -> Data? {
        #if canImport(CZlib)
        var stream = z_stream()
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        let input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let produced = input.withUnsafeBufferPointer { source -> Int? in
            output.withUnsafeMutableBufferPointer { target -> Int? in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                // The bound holds the whole stream, so one call finishes it.
                guard CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return target.count - Int(stream.avail_out)
            }
        }
        return produced.map { Data(output[..<$0]) }
        #else
        return nil
        #endif
    }

    /// The bytes a raw DEFLATE stream holds; nil for a stream that is damaged, incomplete, or
    /// larger than `maximumSize`.
    ///
    /// - Complexity: O(n) in the inflated size.
    static func inflate(_ data: Data) -> Data? {
        #if canImport(CZlib)
        guard !data.isEmpty else { return nil }
        var stream = z_stream()
        // Negative window bits: a raw stream, no zlib header or checksum.
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let input = [UInt8](data)
        return input.withUnsafeBufferPointer { source -> Data? in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output.append(contentsOf: chunk[..<produced])
                guard output.count <= maximumSize else { return nil }
                if status == Z_STREAM_END { return output }
                // Out of input before the end, or damaged: no model.
                guard status == Z_OK, produced > 0 || stream.avail_in > 0 else { return nil }
            }
        }
        #else
        return nil
        #endif
    }
}
