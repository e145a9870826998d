import PhotonCore

/// The OpenAPI 3.1 description of API v1, served at `/api/v1/openapi.json`. A test walks
/// every path and method here against a running door, so this stays true.
enum WebAPIDocument {
    /// The document as served: the paths below, with the command schema derived from the
    /// command catalog (each command's fields and limits) and the envelope's fields.
    static let json: String = {
        guard case .object(var root) = (try? JSONValue.parse(Array(template.utf8), maximumDepth: 64)) ?? .null else { return template }
        root = replacing(root, path: ["components", "schemas", "Command"], with: commandSchema)
        return JSONValue.object(root).encoded
    }()

    /// A command object: one of the catalog's commands, in its envelope.
    static var commandSchema: JSONValue {
        var properties: [(String, JSONValue)] = []
        for entry in CommandCatalog.entries {
            guard case .object(let fields)? = entry.schema["properties"] else { continue }
            properties += fields.filter { field in !properties.contains { $0.0 == field.0 } }
        }
        properties += [
            ("commandId", .object([("type", "string"), ("format", "uuid")])), ("issuedAt", .object([("type", "number")])),
            ("expiresAt", .object([("type", "number")])), ("source", .object([("enum", .array(["web", "gesture", "api-client"]))])),
            ("sessionId", .object([("type", "string"), ("format", "uuid")])), ("seq", .object([("type", "integer")])),
        ]
        let names = CommandCatalog.entries.flatMap(\.wireFields).joined(separator: ", ")
        return .object([
            ("type", "object"),
            (
                "description",
                .string(
                    "One of \(names) (a key with action press|hold-start|hold-end, or hold in ms); plus the envelope: commandId (UUID), "
                        + "issuedAt and expiresAt (Unix seconds), source (web, gesture, api-client), and in a session sessionId and seq.")
            ),
            ("properties", .object(properties)),
        ])
    }

    static func replacing(_ object: [(String, JSONValue)], path: [String], with value: JSONValue) -> [(String, JSONValue)] {
        guard let first = path.first else { return object }
        return object.map { field in
            guard field.0 == first else { return field }
            if path.count == 1 { return (first, value) }
            guard case .object(let inner) = field.1 else { return field }
            return (first, .object(replacing(inner, path: Array(path.dropFirst()), with: value)))
        }
    }

    static let template = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "Photon HTTP API",
            "version": "1",
            "description": "Drive paired TVs through the Photon daemon (photon serve --http). Every command goes through the daemon's router. Pair a client with POST /api/v1/pair and a code from `photon web pair`, then send Authorization: Bearer TOKEN. Errors are {\"error\",\"hint\",\"code\"}."
          },
          "components": {
            "securitySchemes": {
              "bearer": { "type": "http", "scheme": "bearer" },
              "cookie": { "type": "apiKey", "in": "cookie", "name": "photon_token", "description": "The web remote's: the token's first 22 characters, valid only with the rest in the Photon-Page-Key header." }
            },
            "schemas": {
              "Error": {
                "type": "object",
                "required": ["error", "code"],
                "properties": { "error": { "type": "string" }, "hint": { "type": ["string", "null"] }, "code": { "type": "string" } }
              },
              "TV": {
                "type": "object",
                "properties": {
                  "id": { "type": "string" }, "nickname": { "type": "string" }, "brand": { "type": "string" },
                  "host": { "type": "string" }, "port": { "type": "integer" }, "connection": { "type": "string" },
                  "capabilities": { "type": "array", "items": { "type": "string" } }
                }
              },
              "Command": {
                "type": "object",
                "description": "One of key (with action press|hold-start|hold-end, or hold in ms), raw, text, launch, search, input, channel, notify, screen, volume; plus the envelope: commandId (UUID), issuedAt and expiresAt (Unix seconds), source (web, gesture, api-client), and in a session sessionId and seq.",
                "properties": {
                  "key": { "type": "string" }, "action": { "type": "string" }, "hold": { "type": "integer" }, "raw": { "type": "string" },
                  "text": { "type": "string" }, "launch": { "type": "string" }, "search": { "type": "string" },
                  "input": { "type": "string" }, "channel": { "type": "string" }, "notify": { "type": "string" },
                  "screen": { "enum": ["on", "off"] }, "volume": { "type": ["string", "integer"] },
                  "commandId": { "type": "string", "format": "uuid" }, "issuedAt": { "type": "number" }, "expiresAt": { "type": "number" },
                  "source": { "enum": ["web", "gesture", "api-client"] }, "sessionId": { "type": "string", "format": "uuid" },
                  "seq": { "type": "integer" }
                }
              },
              "Sent": {
                "type": "object",
                "properties": { "acknowledged": { "type": "boolean" }, "sent": { "type": "string" } }
              }
            }
          },
          "security": [{ "bearer": [] }, { "cookie": [] }],
          "paths": {
            "/api/v1/version": {
              "get": { "summary": "The web protocol version and Photon's version", "security": [], "responses": { "200": { "description": "{\"protocol\",\"version\"}" } } }
            },
            "/api/v1/openapi.json": {
              "get": { "summary": "This document", "security": [], "responses": { "200": { "description": "OpenAPI 3.1" } } }
            },
            "/api/v1/pair": {
              "post": {
                "summary": "Pair a client with the one-time code `photon web pair` shows",
                "security": [],
                "requestBody": { "content": { "application/json": { "schema": { "type": "object", "required": ["code"], "properties": { "code": { "type": "string" }, "name": { "type": "string" } } } } } },
                "responses": { "200": { "description": "{\"token\",\"name\"}, and the cookie for the web remote" }, "403": { "description": "wrong-code, pairing-expired, pairing-closed or pairing-locked" } }
              }
            },
            "/api/v1/whoami": {
              "get": { "summary": "The name this client was paired under", "responses": { "200": { "description": "{\"name\"}" }, "401": { "description": "no valid token" } } }
            },
            "/api/v1/tvs": {
              "get": { "summary": "Every paired TV with the daemon's view of it", "responses": { "200": { "description": "{\"tvs\":[TV]}" } } }
            },
            "/api/v1/tvs/{tv}": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "get": { "summary": "One TV's state (waits up to ?wait= seconds, default 1.5, for it)", "responses": { "200": { "description": "{\"tv\":TV}" }, "404": { "description": "no such TV" } } }
            },
            "/api/v1/tvs/{tv}/apps": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "get": { "summary": "The TV's installed apps", "responses": { "200": { "description": "{\"apps\":[{\"id\",\"name\"}]}" }, "501": { "description": "the TV cannot list apps" } } }
            },
            "/api/v1/tvs/{tv}/inputs": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "get": { "summary": "The TV's inputs", "responses": { "200": { "description": "{\"inputs\":[…]}" }, "501": { "description": "the TV cannot list inputs" } } }
            },
            "/api/v1/tvs/{tv}/channels": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "get": { "summary": "The TV's channels", "responses": { "200": { "description": "{\"channels\":[…]}" }, "501": { "description": "the TV cannot list channels" } } }
            },
            "/api/v1/tvs/{tv}/commands": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "post": {
                "summary": "Send a command (the socket API's command fields, in the body or under \"command\")",
                "requestBody": { "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Command" } } } },
                "responses": {
                  "200": { "description": "Sent", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Sent" } } } },
                  "403": { "description": "gesture-forbidden or gesture-not-armed" },
                  "408": { "description": "expired before it could be sent" },
                  "409": { "description": "duplicate or out-of-order" },
                  "501": { "description": "the TV cannot do it" }
                }
              }
            },
            "/api/v1/tvs/{tv}/run": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "post": {
                "summary": "Run a macro: a saved one by name, or steps",
                "requestBody": { "content": { "application/json": { "schema": { "type": "object", "properties": { "macro": { "type": "string" }, "steps": { "type": "array", "items": { "type": "string" } }, "lifetime": { "type": "number" } } } } } },
                "responses": { "200": { "description": "{\"results\":[…]}" } }
              }
            },
            "/api/v1/tvs/{tv}/wake": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "post": { "summary": "Wake the TV if it does not answer, and wait for it (wait: seconds)", "responses": { "200": { "description": "{\"woke\"}" } } }
            },
            "/api/v1/tvs/{tv}/sessions": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "post": { "summary": "Open a router session bound to the TV (commands then carry sessionId and seq, and live at most 1 s)", "responses": { "201": { "description": "{\"sessionId\",\"tv\"}" } } }
            },
            "/api/v1/sessions/{id}": {
              "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } }],
              "delete": { "summary": "Close a session (what it had pending is cancelled)", "responses": { "204": { "description": "closed" }, "404": { "description": "no such session of this client" } } }
            },
            "/api/v1/tvs/{tv}/gesture/arm": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "post": {
                "summary": "Open (or arm again) a gesture session for at most 10 s; commands with source gesture and its sessionId are gesture commands",
                "requestBody": { "content": { "application/json": { "schema": { "type": "object", "properties": { "seconds": { "type": "number", "maximum": 10 }, "sessionId": { "type": "string" } } } } } },
                "responses": { "200": { "description": "{\"sessionId\",\"armedUntil\"}" } }
              }
            },
            "/api/v1/tvs/{tv}/homekit": {
              "parameters": [{ "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } }],
              "get": {
                "summary": "Whether the daemon serves the TV in Apple Home (photon serve --homekit) and, while no controller is paired, its setup code, setup URI and QR code (SVG)",
                "responses": { "200": { "description": "{\"homekit\":{\"served\",\"paired\",\"setupCode\",\"setupURI\",\"qrSVG\"}}" } }
              }
            },
            "/api/v1/tvs/{tv}/voice": {
              "parameters": [
                { "name": "tv", "in": "path", "required": true, "schema": { "type": "string" } },
                { "name": "rate", "in": "query", "schema": { "type": "integer", "minimum": 8000, "maximum": 48000, "default": 16000 } },
                { "name": "to", "in": "query", "schema": { "type": "string", "enum": ["search", "text"] } }
              ],
              "get": {
                "summary": "WebSocket: one spoken request. Binary frames of 16-bit little-endian mono PCM at ?rate (at most 16 KiB each, 10 s in all, no faster than real time), then {\"end\":true}; answers listening, heard (a guess waits for {\"send\":true}), sent, cancelled or error events. One at a time per client",
                "responses": { "101": { "description": "upgraded" }, "429": { "description": "voice-busy: this client is already speaking" } }
              }
            },
            "/api/v1/macros": {
              "get": { "summary": "The saved macros", "responses": { "200": { "description": "{\"macros\":[{\"name\",\"steps\"}]}" } } }
            },
            "/api/v1/events": {
              "get": { "summary": "WebSocket: the TVs' state changes (?tv=NAME for one; &protocol=1)", "responses": { "101": { "description": "upgraded" } } }
            }
          }
        }

        """#
}
