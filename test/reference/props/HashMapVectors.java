// Our own single-file program (JDK only): prints the iteration orders of java.util.HashMap<String,
// String> after sequences of put/remove, as C++ initializers for test/unit/common/java_string_map_test.cpp.
// Run: java HashMapVectors.java   (JDK 17 printed the vectors in that test)
import java.util.*;

public class HashMapVectors {
    // ops: "+key" puts key (value = key), "-key" removes it.
    static void vector(String name, List<String> ops) {
        HashMap<String, String> m = new HashMap<>();
        for (String op : ops) {
            if (op.charAt(0) == '+') m.put(op.substring(1), op.substring(1));
            else m.remove(op.substring(1));
        }
        StringBuilder sb = new StringBuilder();
        sb.append("  {\"").append(name).append("\", {");
        for (int i = 0; i < ops.size(); i++) sb.append(i == 0 ? "" : ", ").append('"').append(ops.get(i)).append('"');
        sb.append("}, {");
        int i = 0;
        for (String k : m.keySet()) sb.append(i++ == 0 ? "" : ", ").append('"').append(k).append('"');
        sb.append("}},");
        System.out.println(sb);
    }

    static int bucket32(String k) { int h = k.hashCode(); return (h ^ (h >>> 16)) & 31; }

    public static void main(String[] args) {
        vector("client props + CLUSTER", Arrays.asList("+KEYS", "+UNIQ_KEY", "+WAIT", "+TAGS", "+CLUSTER", "-WAIT"));
        vector("user props first", Arrays.asList("+color", "+price", "+KEYS", "+UNIQ_KEY", "+WAIT", "+TAGS", "+CLUSTER", "-WAIT"));
        vector("WAIT removed and put again goes last in its bucket",
            Arrays.asList("+REAL_TOPIC", "+KEYS", "+TRAN_MSG", "+UNIQ_KEY", "+WAIT", "+PGROUP", "+TAGS", "+CLUSTER", "-WAIT", "+WAIT", "+REAL_TOPIC", "+REAL_QID"));
        vector("delay", Arrays.asList("+UNIQ_KEY", "+WAIT", "+DELAY", "+CLUSTER", "-WAIT", "+WAIT", "+REAL_TOPIC", "+REAL_QID"));
        // 13 keys: the 13th put resizes 16 -> 32; removing one does not shrink the table.
        List<String> grow = new ArrayList<>();
        for (int i = 0; i < 13; i++) grow.add("+p" + i);
        grow.add("-p3");
        vector("13 puts grow the table to 32", grow);
        List<String> grow2 = new ArrayList<>();
        for (int i = 0; i < 25; i++) grow2.add("+key-" + i);
        vector("25 puts grow the table to 64", grow2);
        // Same-hash keys ("Aa" and "BB" hash alike): chain order is insertion order.
        vector("colliding keys", Arrays.asList("+BB", "+Aa", "+AaAa", "+BBBB", "+AaBB", "-Aa", "+Aa"));
        // 9 keys in one bucket of a 16-table: the 9th put resizes (treeifyBin below 64).
        // The first key is in bucket b + 16 of a 32-table, the other eight in bucket b: iterating
        // the 16-table gives insertion order, the resized 32-table puts the first key last.
        List<String> same = new ArrayList<>();
        String first = null;
        for (int i = 0; first == null; i++) { String k = "c" + i; if (bucket32(k) >= 16) first = k; }
        same.add("+" + first);
        for (int i = 0; same.size() < 9; i++) { String k = "c" + i; if (bucket32(k) == bucket32(first) - 16) same.add("+" + k); }
        vector("8 keys in one bucket: no resize", same.subList(0, 8));
        vector("a 9th key in one bucket resizes the table", same);
        List<String> utf = Arrays.asList("+\u00fcber", "+\u4e2d\u6587", "+emoji\ud83d\ude00", "+plain");
        vector("non-ASCII keys hash as UTF-16", utf);
    }
}
