package io.qbeast.trino.handle;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.BeanSerializerFactory;
import com.fasterxml.jackson.databind.ser.DefaultSerializerProvider;
import io.airlift.json.ObjectMapperProvider;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;
import io.trino.type.TypeDeserializer;
import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static org.assertj.core.api.Assertions.assertThat;

/** A table handle with row predicates survives the engine's JSON round trip to the workers. */
class TestRowPredicateJson
{
    @Test
    void testRoundTrip()
            throws Exception
    {
        ObjectMapper mapper = new ObjectMapperProvider()
                .withJsonDeserializers(Map.of(Type.class, new TypeDeserializer(TESTING_TYPE_MANAGER::getType)))
                .get();
        QbeastColumnHandle orderkey = new QbeastColumnHandle("orderkey", 1, BIGINT, false);
        QbeastColumnHandle comment = new QbeastColumnHandle("comment", 2, VARCHAR, false);
        RowPredicate modulus = new RowPredicate.Call(BOOLEAN, RowPredicate.Operator.EQUAL, List.of(
                new RowPredicate.Call(BIGINT, RowPredicate.Operator.MODULUS, List.of(new RowPredicate.ColumnValue(orderkey), new RowPredicate.LongConstant(BIGINT, 7))),
                new RowPredicate.LongConstant(BIGINT, 3)));
        RowPredicate or = new RowPredicate.Call(BOOLEAN, RowPredicate.Operator.OR, List.of(
                new RowPredicate.Like(new RowPredicate.ColumnValue(comment), "%a\\_%", Optional.of("\\")),
                new RowPredicate.Call(BOOLEAN, RowPredicate.Operator.IN, List.of(new RowPredicate.ColumnValue(comment), new RowPredicate.SliceConstant(VARCHAR, "x".getBytes(StandardCharsets.UTF_8)))),
                new RowPredicate.Call(BOOLEAN, RowPredicate.Operator.LESS_THAN, List.of(new RowPredicate.Call(DOUBLE, RowPredicate.Operator.CAST, List.of(new RowPredicate.ColumnValue(orderkey))), new RowPredicate.DoubleConstant(Double.NaN)))));
        QbeastTableHandle handle = new QbeastTableHandle("s", "t", Optional.of(5L), TupleDomain.all(), List.of(modulus, or), 0.25, Optional.empty(), true);
        assertThat(mapper.readValue(mapper.writeValueAsString(handle), QbeastTableHandle.class)).isEqualTo(handle);

        // as the engine writes a connector handle: with a bean serializer it does not resolve
        StringWriter json = new StringWriter();
        try (JsonGenerator generator = mapper.getFactory().createGenerator(json)) {
            SerializerProvider provider = ((DefaultSerializerProvider) mapper.getSerializerProvider()).createInstance(mapper.getSerializationConfig(), mapper.getSerializerFactory());
            JsonSerializer<Object> unresolved = BeanSerializerFactory.instance.createSerializer(provider, mapper.constructType(QbeastTableHandle.class));
            unresolved.serialize(handle, generator, provider);
        }
        assertThat(mapper.readValue(json.toString(), QbeastTableHandle.class)).isEqualTo(handle);
    }
}
