/// Synthetic vocabulary: nothing here is real book content.
enum Words {
    static let common: [String] = """
        the of and a to in is was that it for as with his on be at by this had not are but from \
        or have an they which one you were her all she there would their we him been has when \
        who will more no if out so said what up its about into than them can only other new \
        some could time these two may then do first any my now such like our over man me even \
        most made after also did many before must through back years where much your way well \
        down should because each just those people how too little state good very make world \
        still own see men work long get here between both life being under never day same \
        another know while last might us great old year off come since against go came right \
        used take three chapter reader author story page memory light river winter letter \
        garden house city night morning silence voice window road sea mountain forest ship \
        island war peace love grief hope fear promise secret journey return mother father \
        brother sister friend stranger king village harbour lamp candle clock mirror door \
        staircase attic cellar library archive map compass ledger notebook ink paper margin \
        footnote sentence paragraph argument theory evidence question answer pattern structure \
        rhythm tone irony metaphor image symbol narrator character plot ending beginning middle \
        remember notice wonder doubt believe suspect argue suggest imagine recall compare \
        slowly quietly suddenly finally almost perhaps certainly rarely often always nearly \
        strange quiet bright dark heavy fragile patient restless careful honest distant \
        familiar ordinary curious tender bitter sharp gentle vivid obscure
        """.split(separator: " ").map(String.init)

    /// Non-ASCII words mixed into some annotations and titles: accents, Cyrillic, CJK, emoji.
    static let international: [String] = [
        "café", "naïve", "déjà", "façade", "Zürich", "São", "œuvre", "fiancée", "Ångström", "smörgåsbord",
        "Dvořák", "Łódź", "niño", "résumé", "Ærø", "Straße", "Ελλάδα", "λόγος",
        "книга", "чтение", "память", "время", "слово", "тишина", "дорога", "письмо",
        "読書", "記憶", "時間", "本の虫", "静けさ", "物語", "图书馆", "月光", "책", "기억",
        "📚", "✨", "🤔", "☕", "🌧️", "🕯️", "👍🏽", "🇫🇷",
    ]

    static let firstNames = [
        "Ada", "Basil", "Clara", "Dmitri", "Elif", "Fenna", "Goran", "Hana", "Ines", "Jonas", "Kaori", "Lucien",
        "Mira", "Nils", "Odile", "Pavel", "Quentin", "Rosa", "Sven", "Tamsin", "Ulla", "Viktor", "Wen", "Yusuf", "Zoé",
    ]
    static let lastNames = [
        "Abernathy", "Brightwater", "Castellane", "Dunmore", "Esterházy", "Falk", "Grimaldi", "Holloway",
        "Ivanova", "Jansen", "Kowalczyk", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quill",
        "Rasmussen", "Szabó", "Thorne", "Umarov", "Vasquez", "Whitlock", "Yamada", "Zielinski",
    ]

    /// The rare word `Scripts/bench` searches for: it appears in about 0.5% of annotations.
    static let rare = "serendipity"
}
