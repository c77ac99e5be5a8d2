import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, dropout_1: torch.Tensor, dropout_2: torch.Tensor):
        l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_ = L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_
        l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_ = L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_
        add_1 = dropout_1 + dropout_2;  dropout_1 = dropout_2 = None
        layer_norm_2 = torch.nn.functional.layer_norm(add_1, (128,), l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_, l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_, 1e-05);  add_1 = l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_weight_ = l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm_parameters_bias_ = None
        return (layer_norm_2,)
