import java.util.*;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
public class AclVectors {
  // AclUtils.combineRequestContent + AclSigner.calSignature, as 4.9.8 computes them.
  static String sign(Map<String,String> ext, byte[] body, String sk) throws Exception {
    SortedMap<String,String> m = new TreeMap<>(ext);
    StringBuilder sb = new StringBuilder("");
    for (Map.Entry<String,String> e : m.entrySet()) if (!"Signature".equals(e.getKey())) sb.append(e.getValue());
    byte[] b1 = sb.toString().getBytes(StandardCharsets.UTF_8);
    byte[] total = new byte[b1.length + (body == null ? 0 : body.length)];
    System.arraycopy(b1, 0, total, 0, b1.length);
    if (body != null) System.arraycopy(body, 0, total, b1.length, body.length);
    Mac mac = Mac.getInstance("HmacSHA1");
    mac.init(new SecretKeySpec(sk.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
    return Base64.getEncoder().encodeToString(mac.doFinal(total));
  }
  public static void main(String[] a) throws Exception {
    Map<String,String> e1 = new HashMap<>();
    e1.put("AccessKey", "RocketMQ"); e1.put("a", "ProducerGroupA"); e1.put("b", "TopicTest"); e1.put("c", "TBW102");
    e1.put("d", "4"); e1.put("e", "0"); e1.put("f", "0"); e1.put("g", "1700000000000"); e1.put("h", "0");
    e1.put("i", "UNIQ_KEY\u0001C0A8000100002A9F\u0002WAIT\u0001true\u0002TAGS\u0001TagA\u0002");
    e1.put("j", "0"); e1.put("k", "false"); e1.put("m", "false");
    System.out.println("send_v2 " + sign(e1, "Hello RocketMQ".getBytes(StandardCharsets.UTF_8), "12345678"));
    Map<String,String> e2 = new HashMap<>();
    e2.put("AccessKey", "rocketmq2");
    System.out.println("no_fields_no_body " + sign(e2, null, "12345678"));
    Map<String,String> e3 = new HashMap<>();
    e3.put("AccessKey", "RocketMQ"); e3.put("SecurityToken", "tok"); e3.put("topic", "T\u00e9st"); e3.put("Signature", "ignored");
    System.out.println("utf8_token " + sign(e3, new byte[]{0, (byte)0xff, 10}, "s\u00e9cret-key"));
    Map<String,String> e4 = new HashMap<>();
    e4.put("AccessKey", "RocketMQ"); e4.put("B", "upper"); e4.put("_x", "under"); e4.put("a", "lower");
    System.out.println("key_order " + sign(e4, null, "12345678"));
    // HashMap iteration order of a few resources, as checkPerm walks them
    for (String[] set : new String[][]{{"TopicTest", "%RETRY%please_rename_unique_group_name_4"}, {"%RETRY%g1", "topicA", "topicB", "%RETRY%groupX"}}) {
      Map<String, Byte> hm = new HashMap<>();
      for (String s : set) hm.put(s, (byte)8);
      System.out.println("order " + String.join(",", hm.keySet()));
    }
  }
}
