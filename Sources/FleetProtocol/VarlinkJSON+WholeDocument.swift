import FoundationEssentials

extension VarlinkJSON {
    /// Checks that all of `bytes` is JSON, every string, key and number included: JSONDecoder checks a value
    /// only when something decodes it, so this decodes every one. (It stands in for JSONSerialization, which
    /// is not in FoundationEssentials; unlike it, FoundationEssentials' decoder does not say where the error is.)
    static func checkWholeDocument(_ bytes: [UInt8]) throws(VarlinkError) {
        do {
            _ = try decoder.decode(EveryValue.self, from: Data(bytes))
        } catch let error as DecodingError {
            switch error {
            case .dataCorrupted(let context): throw .invalidRequest(syntaxReason(context))
            default: throw .invalidRequest("not valid JSON: \(error)")
            }
        } catch {
            throw .invalidRequest("not valid JSON: \(error)")
        }
    }

    /// Decodes from any JSON value by reading everything in it. A container of the wrong kind is a type
    /// mismatch, which moves on to the next kind; anything else (a broken string or key) is the answer.
    private struct EveryValue: Decodable {
        init(from decoder: any Decoder) throws {
            func ifOfKind<Container>(_ make: () throws -> Container) throws -> Container? {
                do { return try make() } catch DecodingError.typeMismatch { return nil }
            }
            let value = try decoder.singleValueContainer()
            if value.decodeNil() { return }
            if try ifOfKind({ try value.decode(String.self) }) != nil { return }
            if try ifOfKind({ try value.decode(Bool.self) }) != nil { return }
            if var elements = try ifOfKind({ try decoder.unkeyedContainer() }) {
                while !elements.isAtEnd { _ = try elements.decode(EveryValue.self) }
                return
            }
            if let members = try ifOfKind({ try decoder.container(keyedBy: AnyCodingKey.self) }) {
                for key in members.allKeys { _ = try members.decode(EveryValue.self, forKey: key) }
                return
            }
            // Then a number. Decoding it checks its syntax (no leading zero, digits after a point) and that a
            // double can hold it, as JSONSerialization did.
            _ = try value.decode(Double.self)
        }
    }
}
