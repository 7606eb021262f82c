"""Pure language: normalisation and index text, stop words and lexicons, query terms,
near-duplicate similarity, secret detection. No SQL, no I/O."""
