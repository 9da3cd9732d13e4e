package io.qbeast.trino.handle;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;

import java.io.IOException;
import java.util.List;

/**
 * Writes a table handle's row predicates with their {@code @kind}. The engine serialises a
 * connector handle with a bean serializer it never resolves, so a {@code List} property is
 * written by the list's runtime class ({@code List<Object>}) and its elements' type ids are lost;
 * this serializer writes each with the type serializer of {@link RowPredicate} (nested arguments
 * then go through resolved serializers).
 */
public final class RowPredicateListSerializer
        extends StdSerializer<List<RowPredicate>>
{
    @SuppressWarnings("unchecked")
    public RowPredicateListSerializer()
    {
        super((Class<List<RowPredicate>>) (Class<?>) List.class);
    }

    @Override
    public void serialize(List<RowPredicate> predicates, JsonGenerator generator, SerializerProvider provider)
            throws IOException
    {
        TypeSerializer kind = provider.findTypeSerializer(provider.constructType(RowPredicate.class));
        generator.writeStartArray();
        for (RowPredicate predicate : predicates) {
            JsonSerializer<Object> serializer = provider.findValueSerializer(predicate.getClass());
            serializer.serializeWithType(predicate, generator, provider, kind);
        }
        generator.writeEndArray();
    }
}
