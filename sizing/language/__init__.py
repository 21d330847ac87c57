"""The scenario language: field types, the declarations made of them, the checker and the JSON Schema."""
